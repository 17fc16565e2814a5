// RestClient: Client over HTTPS to a real API server.
#pragma once

#include <memory>

#include "kube/client.h"
#include "kube/http_transport.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

class RestClient final : public Client {
 public:
  // Connects lazily; fails only on an unusable config.
  static Result<std::unique_ptr<RestClient>> Create(const RestConfig& config);
  // For tests: a client over any transport.
  explicit RestClient(std::unique_ptr<HttpTransport> transport);

  Result<Object> Get(const ResourceType& type, std::string_view ns, std::string_view name) override;
  Result<ObjectList> List(const ResourceType& type, std::string_view ns,
                          const ListOptions& options) override;
  Result<Object> Create(const ResourceType& type, std::string_view ns,
                        const rapidjson::Value& object, std::string_view subresource) override;
  Result<Object> Update(const ResourceType& type, std::string_view ns,
                        const rapidjson::Value& object, std::string_view subresource) override;
  Result<Object> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                       PatchType patch_type, std::string_view patch,
                       const PatchOptions& options) override;
  Status Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                const DeleteOptions& options) override;
  Status Watch(const ResourceType& type, std::string_view ns, const ListOptions& options,
               const WatchHandler& handler, Cancellation* cancel) override;

  // A raw GET of any path (e.g. "/readyz", "/version"): status code and body.
  Result<HttpResponse> RawGet(std::string_view path);

 private:
  // Sends a request and decodes a 2xx JSON answer. Retries reads on
  // throttling and unavailability; retries writes only where the server
  // cannot have acted (429, connection refused).
  Result<Object> Do(std::string_view method, const std::string& path, std::string_view body,
                    std::string_view content_type);

  std::unique_ptr<HttpTransport> transport_;
};

// Percent-encodes a query parameter value.
std::string EscapeQueryValue(std::string_view value);

}  // namespace vtenant::kube
