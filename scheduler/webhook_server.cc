#include "scheduler/webhook_server.h"

#include <cpprest/http_listener.h>
#include <glog/logging.h>

#include <fstream>
#include <functional>

#include "kube/base64.h"
#include "kube/json_builder.h"
#include "pki/pki.h"

namespace vtenant::scheduler {
namespace {

namespace http = web::http;
using kube::resources::kMutatingWebhookConfigurations;

// `text` as a CEL string literal: single-quoted, its quotes, backslashes and
// line breaks escaped, so that a scheduler name is compared, never read as CEL.
std::string CelString(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

WebhookServer::WebhookServer(WebhookOptions options) : options_(std::move(options)) {}

WebhookServer::~WebhookServer() { Stop(); }

std::string WebhookServer::url() const {
  if (!options_.url.empty()) return options_.url;
  return "https://" + options_.host + ":" + std::to_string(options_.port) + "/mutate";
}

Status WebhookServer::Start() {
  if (options_.port == 0) return InvalidArgument("--webhook-address needs an explicit port");
  // The served certificate: the files given, read when the listener opens,
  // or one made here and kept in memory only, so that a scheduler that is
  // killed leaves no key behind on disk.
  std::function<void(boost::asio::ssl::context&)> use_certificate;
  if (options_.cert_file.empty()) {
    VT_ASSIGN_OR_RETURN(pki::CertificateAndKey ca,
                        pki::CreateCertificateAuthority("vtenant-scheduler-webhook-ca"));
    pki::CertificateRequest req;
    req.common_name = "vtenant-scheduler-webhook";
    req.server = true;
    req.dns_names = {"localhost"};
    if (options_.host.find_first_not_of("0123456789.") == std::string::npos)
      req.ip_addresses = {options_.host == "0.0.0.0" ? "127.0.0.1" : options_.host};
    else
      req.dns_names.push_back(options_.host);
    VT_ASSIGN_OR_RETURN(pki::CertificateAndKey leaf, pki::IssueCertificate(ca, req));
    ca_pem_ = ca.certificate_pem;
    use_certificate = [leaf](boost::asio::ssl::context& ctx) {
      ctx.use_certificate_chain(boost::asio::buffer(leaf.certificate_pem));
      ctx.use_private_key(boost::asio::buffer(leaf.private_key_pem),
                          boost::asio::ssl::context::pem);
    };
  } else {
    std::ifstream f(options_.cert_file);
    if (!f) return InvalidArgument(options_.cert_file + ": cannot read the webhook certificate");
    ca_pem_.assign(std::istreambuf_iterator<char>(f), {});
    use_certificate = [cert = options_.cert_file,
                       key = options_.key_file](boost::asio::ssl::context& ctx) {
      ctx.use_certificate_chain_file(cert);
      ctx.use_private_key_file(key, boost::asio::ssl::context::pem);
    };
  }
  http::experimental::listener::http_listener_config config;
  config.set_ssl_context_callback([use_certificate](boost::asio::ssl::context& ctx) {
    ctx.set_options(boost::asio::ssl::context::default_workarounds |
                    boost::asio::ssl::context::no_sslv2 | boost::asio::ssl::context::no_sslv3 |
                    boost::asio::ssl::context::no_tlsv1 | boost::asio::ssl::context::no_tlsv1_1);
    use_certificate(ctx);
  });
  const std::string address = "https://" + options_.host + ":" + std::to_string(options_.port);
  try {
    listener_ =
        std::make_unique<http::experimental::listener::http_listener>(web::uri(address), config);
  } catch (const std::exception& e) {
    return InvalidArgument("webhook address " + address + ": " + e.what());
  }
  const AdmissionOptions admission = options_.admission;
  // The handler runs on cpprestsdk's I/O pool, the pool that also reads
  // request bodies and carries the scheduler's own API calls, so it must
  // never wait on that pool. Handlers that waited for their bodies once
  // took every thread of it in a burst of pod creates: the API server's
  // webhook calls timed out and the scheduler's bindings with them, for
  // minutes. The review therefore runs once the body is in.
  listener_->support(http::methods::POST, [admission](http::http_request request) {
    request.extract_string(true)
        .then([request, admission](pplx::task<std::string> body) {
          http::http_response response;
          try {
            Result<std::string> answer = Review(body.get(), admission);
            if (answer.ok()) {
              response.set_status_code(http::status_codes::OK);
              response.set_body(*answer, "application/json");
            } else {
              response.set_status_code(http::status_codes::BadRequest);
              response.set_body(answer.status().message());
            }
          } catch (const std::exception& e) {
            response.set_status_code(http::status_codes::BadRequest);
            response.set_body(std::string("unreadable request: ") + e.what());
          }
          return request.reply(response);
        })
        .then([](pplx::task<void> sent) {
          try {
            sent.get();
          } catch (const std::exception& e) {
            VLOG(1) << "webhook reply not sent: " << e.what();
          }
        });
  });
  try {
    listener_->open().wait();
  } catch (const std::exception& e) {
    listener_.reset();
    return Unavailable("webhook cannot listen on " + address + ": " + e.what());
  }
  LOG(INFO) << "admission webhook listening on " << address;
  return Status::Ok();
}

void WebhookServer::Stop() {
  if (!listener_) return;
  try {
    listener_->close().wait();
  } catch (const std::exception& e) {
    LOG(WARNING) << "closing webhook: " << e.what();
  }
  listener_.reset();
}

kube::Object WebhookConfiguration(const WebhookOptions& o, const std::string& url,
                                  const std::string& ca_pem) {
  auto hook = [&](std::string_view name, std::string_view policy, kube::JsonObject rule) {
    return kube::JsonObject{
        {"name", name},
        {"admissionReviewVersions", kube::JsonArray{"v1"}},
        {"sideEffects", "None"},
        {"timeoutSeconds", 5},
        {"failurePolicy", policy},
        {"clientConfig", kube::JsonObject{{"url", url}, {"caBundle", kube::EncodeBase64(ca_pem)}}},
        {"rules", kube::JsonArray{std::move(rule)}}};
  };
  const std::string ours = "object.spec.schedulerName == " + CelString(o.admission.scheduler_name);
  auto pods = [&](std::string_view name, std::string_view policy, const std::string& condition) {
    kube::JsonObject h = hook(name, policy,
                              kube::JsonObject{{"operations", kube::JsonArray{"CREATE"}},
                                               {"apiGroups", kube::JsonArray{""}},
                                               {"apiVersions", kube::JsonArray{"v1"}},
                                               {"resources", kube::JsonArray{"pods"}},
                                               {"scope", "Namespaced"}});
    h.Set("reinvocationPolicy", "IfNeeded");
    h.Set("namespaceSelector",
          kube::JsonObject{
              {"matchExpressions",
               kube::JsonArray{kube::JsonObject{
                   {"key", "kubernetes.io/metadata.name"},
                   {"operator", "NotIn"},
                   {"values", kube::JsonArray{o.reservation_namespace, "kube-system"}}}}}});
    h.Set("matchConditions",
          kube::JsonArray{kube::JsonObject{{"name", "ours"}, {"expression", ours}},
                          kube::JsonObject{{"name", "share"}, {"expression", condition}}});
    return h;
  };
  const std::string sharing =
      "has(object.metadata.annotations) && ('gpu-fraction' in object.metadata.annotations || "
      "'gpu-memory' in object.metadata.annotations)";
  // KAI's PodGroup and Queue checks (kai/podgroup_admission.h,
  // kai/queue_admission.h). They change nothing, and a mutating webhook may
  // refuse as well as a validating one: riding on this configuration keeps
  // the scheduler's rights to the one object the chart makes for it.
  // Ignore: the scheduler reads every group and queue again.
  auto checks = [&](std::string_view name, kube::JsonArray operations, std::string_view version,
                    std::string_view resource, std::string_view scope) {
    kube::JsonObject h = hook(name, "Ignore",
                              kube::JsonObject{{"operations", std::move(operations)},
                                               {"apiGroups", kube::JsonArray{"scheduling.run.ai"}},
                                               {"apiVersions", kube::JsonArray{version}},
                                               {"resources", kube::JsonArray{resource}},
                                               {"scope", scope}});
    h.Set("reinvocationPolicy", "Never");
    return h;
  };
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "admissionregistration.k8s.io/v1"},
      {"kind", "MutatingWebhookConfiguration"},
      {"metadata", kube::JsonObject{{"name", o.config_name}}},
      {"webhooks",
       kube::JsonArray{
           pods("gpu-sharing.vtenant.io", "Fail", sharing),
           // Blocking device access is a boundary: no pod passes
           // it while the webhook is down.
           pods("gpu-requests.vtenant.io", o.admission.block_visible_devices ? "Fail" : "Ignore",
                "!(" + sharing + ")"),
           checks("podgroups.vtenant.io", kube::JsonArray{"CREATE", "UPDATE"}, "v2alpha2",
                  "podgroups", "Namespaced"),
           checks("queues.vtenant.io", kube::JsonArray{"CREATE", "UPDATE", "DELETE"}, "v2",
                  "queues", "Cluster")}}});
}

Status WebhookServer::Register(kube::Client& client) {
  kube::Object desired = WebhookConfiguration(options_, url(), ca_pem_);
  // The configuration is read by name first and created only when missing:
  // where the chart made it, the scheduler may get and update that one
  // object and create none.
  Result<kube::Object> existing =
      client.Get(kMutatingWebhookConfigurations, "", options_.config_name);
  if (existing.status().code() == StatusCode::kNotFound) {
    Result<kube::Object> created = client.Create(kMutatingWebhookConfigurations, "", desired);
    if (created.ok() || created.status().code() != StatusCode::kAlreadyExists) {
      return created.status();
    }
    existing = client.Get(kMutatingWebhookConfigurations, "", options_.config_name);
  }
  if (!existing.ok()) return existing.status();
  // Everything but metadata is ours; what the chart or a person put in
  // metadata (labels, annotations) stays.
  kube::Object updated = kube::Clone(*existing);
  updated.RemoveMember("webhooks");
  updated.AddMember("webhooks", rapidjson::Value(desired["webhooks"], updated.GetAllocator()),
                    updated.GetAllocator());
  return client.Update(kMutatingWebhookConfigurations, "", updated).status();
}

}  // namespace vtenant::scheduler
