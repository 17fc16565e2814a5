#include "operator/manifest.h"

#include "kube/yaml.h"
#include "operator/podgroup_crd_yaml.h"

namespace vtenant::op {

Result<kube::Object> PodGroupCrd() { return kube::ParseYaml(kPodGroupCrdYaml); }

}  // namespace vtenant::op
