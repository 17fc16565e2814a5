#include "kube/views/queue.h"

namespace vtenant::kube {
namespace {

std::optional<double> Number(const rapidjson::Value* v) {
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

}  // namespace

QueueResourceSpec ReadQueueResource(const rapidjson::Value* r) {
  QueueResourceSpec spec;
  if (r == nullptr || !r->IsObject()) return spec;
  if (auto q = Number(Find(*r, {"quota"}))) spec.quota = *q;
  if (auto l = Number(Find(*r, {"limit"}))) spec.limit = *l;
  if (auto w = Number(Find(*r, {"overQuotaWeight"}))) spec.over_quota_weight = *w;
  return spec;
}

}  // namespace vtenant::kube
