#include "bench/soak_metrics.h"

#include <cpprest/http_client.h>

#include <cstdlib>
#include <string>

namespace vtenant::bench {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The value of label `name` in a sample's `{...}`; "" without it.
std::string_view Label(std::string_view labels, std::string_view name) {
  const std::string key = std::string(name) + "=\"";
  size_t at = labels.find(key);
  // A match inside another label's name ("subresource=") is not this label.
  while (at != std::string_view::npos && at > 0 && labels[at - 1] != '{' && labels[at - 1] != ',') {
    at = labels.find(key, at + 1);
  }
  if (at == std::string_view::npos) return {};
  const size_t begin = at + key.size();
  const size_t end = labels.find('"', begin);
  return end == std::string_view::npos ? std::string_view{} : labels.substr(begin, end - begin);
}

}  // namespace

ServerSelf ParseServerMetrics(std::string_view text) {
  ServerSelf self;
  std::map<std::string, int64_t> storage_objects;  // the older metric's
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (line.empty() || line.front() == '#') continue;
    self.gauges["metric series"] += 1;
    const size_t space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    const std::string value(line.substr(space + 1));
    const std::string_view series = line.substr(0, space);
    const size_t brace = series.find('{');
    const std::string_view name = series.substr(0, brace);
    const std::string_view labels =
        brace == std::string_view::npos ? std::string_view{} : series.substr(brace);
    const double number = std::strtod(value.c_str(), nullptr);
    if (name == "go_memstats_heap_inuse_bytes" || name == "vtenant_malloc_in_use_bytes") {
      self.heap_inuse_mib = number / kMiB;
    } else if (name == "vtenant_malloc_free_bytes") {
      self.gauges["malloc free, MiB"] += number / kMiB;
    } else if (name == "vtenant_informer_objects") {
      const std::string key =
          std::string(Label(labels, "cluster")) + " " + std::string(Label(labels, "resource"));
      self.objects[key] += static_cast<int64_t>(number);
    } else if (name == "go_gc_heap_live_bytes") {
      self.gauges["live heap after the last GC, MiB"] += number / kMiB;
    } else if (name == "go_gc_heap_goal_bytes") {
      self.gauges["heap goal, MiB"] += number / kMiB;
    } else if (name == "go_goroutines") {
      self.gauges["goroutines"] += number;
    } else if (name == "go_memstats_heap_objects") {
      self.gauges["heap objects"] += number;
    } else if (name == "watch_cache_capacity") {
      // The watch cache keeps a window of recent events per resource and
      // widens it while a resource's events arrive faster than the window
      // holds them, so a busy server's heap can grow with it. (The name has
      // no apiserver_ prefix: Kubernetes registers it without one.)
      self.gauges["watch cache capacity, events of every resource"] += number;
      if (Label(labels, "resource") == "pods") {
        self.gauges["watch cache capacity, pod events"] = number;
      }
    } else if (name == "apiserver_longrunning_requests") {
      self.gauges["long-running requests"] += number;
    } else if (name == "apiserver_resource_objects" || name == "apiserver_storage_objects") {
      std::string resource(Label(labels, "resource"));
      const std::string_view group = Label(labels, "group");
      if (!group.empty()) resource += "." + std::string(group);
      if (resource.empty() || number < 0) continue;  // -1: not counted yet
      auto& into = name == "apiserver_resource_objects" ? self.objects : storage_objects;
      into[resource] += static_cast<int64_t>(number);
    }
  }
  if (self.objects.empty()) self.objects = std::move(storage_objects);
  return self;
}

Result<ServerSelf> ReadServerSelf(kube::RestClient& client) {
  VT_ASSIGN_OR_RETURN(kube::HttpResponse response, client.RawGet("/metrics"));
  if (response.status_code != 200) {
    return Unavailable("GET /metrics: HTTP " + std::to_string(response.status_code));
  }
  return ParseServerMetrics(response.body);
}

Result<ServerSelf> ReadServerSelf(const std::string& address) {
  try {
    web::http::client::http_client_config config;
    config.set_timeout(std::chrono::seconds(10));
    web::http::client::http_client client("http://" + address, config);
    web::http::http_response response = client.request(web::http::methods::GET, "/metrics").get();
    if (response.status_code() != 200) {
      return Unavailable("GET http://" + address + "/metrics: HTTP " +
                         std::to_string(response.status_code()));
    }
    return ParseServerMetrics(response.extract_utf8string(true).get());
  } catch (const std::exception& e) {
    return Unavailable("GET http://" + address + "/metrics: " + e.what());
  }
}

ServerSelf MeanOf(const std::vector<ServerSelf>& servers) {
  ServerSelf mean;
  if (servers.empty()) return mean;
  std::map<std::string, double> objects;
  std::map<std::string, int> serving;  // servers that serve each gauge
  for (const ServerSelf& s : servers) {
    mean.heap_inuse_mib += s.heap_inuse_mib / static_cast<double>(servers.size());
    for (const auto& [resource, n] : s.objects) objects[resource] += static_cast<double>(n);
    for (const auto& [figure, value] : s.gauges) {
      mean.gauges[figure] += value;
      ++serving[figure];
    }
  }
  for (auto& [figure, total] : mean.gauges) total /= serving[figure];
  for (const auto& [resource, total] : objects) {
    mean.objects[resource] =
        static_cast<int64_t>(total / static_cast<double>(servers.size()) + 0.5);
  }
  return mean;
}

}  // namespace vtenant::bench
