#include "kube/clock.h"

namespace vtenant::kube {

Clock& DefaultClock() {
  static RealClock* clock = new RealClock();  // leaked: usable during static destruction
  return *clock;
}

}  // namespace vtenant::kube
