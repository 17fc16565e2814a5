#include "kube/client.h"

#include <glog/logging.h>

namespace vtenant::kube {

std::string_view WatchEventTypeName(WatchEvent::Type type) {
  switch (type) {
    case WatchEvent::Type::kAdded:
      return "ADDED";
    case WatchEvent::Type::kModified:
      return "MODIFIED";
    case WatchEvent::Type::kDeleted:
      return "DELETED";
    case WatchEvent::Type::kBookmark:
      return "BOOKMARK";
  }
  return "?";
}

Result<ObjectList> Client::ListAll(const ResourceType& type, std::string_view ns,
                                   ListOptions options, const CallOptions& call) {
  ObjectList all;
  do {
    VT_ASSIGN_OR_RETURN(ObjectList page, List(type, ns, options, call));
    for (auto& item : page.items) all.items.push_back(std::move(item));
    all.resource_version = page.resource_version;
    options.continue_token = page.continue_token;
  } while (!options.continue_token.empty());
  return all;
}

Result<Object> Client::UpdateWithRetry(const ResourceType& type, std::string_view ns,
                                       std::string_view name,
                                       const std::function<Status(Object&)>& mutate,
                                       std::string_view subresource, int attempts,
                                       const CallOptions& call) {
  Status last;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    VT_ASSIGN_OR_RETURN(Object current, Get(type, ns, name, call));
    VT_RETURN_IF_ERROR(mutate(current));
    Result<Object> updated = Update(type, ns, current, subresource, call);
    if (updated.ok() || updated.status().code() != StatusCode::kConflict) return updated;
    last = updated.status();
    VLOG(1) << "conflict updating " << type.resource << " " << MakeKey(ns, name)
            << ", re-reading (attempt " << attempt + 1 << ")";
  }
  return last;
}

namespace {

// The body of a create of a pod's subresource (binding, eviction): its
// apiVersion and kind, named after the pod.
Object PodSubresourceBody(std::string_view api_version, std::string_view kind, std::string_view ns,
                          std::string_view pod) {
  Object body;
  body.SetObject();
  SetString(body, {}, "apiVersion", api_version);
  SetString(body, {}, "kind", kind);
  SetString(body, {"metadata"}, "name", pod);
  SetString(body, {"metadata"}, "namespace", ns);
  return body;
}

}  // namespace

Status Client::Bind(std::string_view ns, std::string_view pod, std::string_view node,
                    const std::map<std::string, std::string>& annotations,
                    const CallOptions& call) {
  Object binding = PodSubresourceBody("v1", "Binding", ns, pod);
  for (const auto& [key, value] : annotations)
    SetString(binding, {"metadata", "annotations"}, key, value);
  SetString(binding, {"target"}, "apiVersion", "v1");
  SetString(binding, {"target"}, "kind", "Node");
  SetString(binding, {"target"}, "name", node);
  return Create(resources::kPods, ns, binding, "binding", call).status();
}

Status Client::Evict(std::string_view ns, std::string_view pod, const CallOptions& call) {
  return Create(resources::kPods, ns, PodSubresourceBody("policy/v1", "Eviction", ns, pod),
                "eviction", call)
      .status();
}

}  // namespace vtenant::kube
