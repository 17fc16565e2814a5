#include "syncer/kubelet_request.h"

#include <cctype>
#include <map>

#include "kube/rest_client.h"

namespace vtenant::syncer {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding of a query value ('+' is a space there).
Result<std::string> Decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) {
        return InvalidArgument("bad percent-encoding in the query");
      }
      const int high = HexValue(text[i + 1]), low = HexValue(text[i + 2]);
      if (high < 0 || low < 0) return InvalidArgument("bad percent-encoding in the query");
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// A namespace, pod or container name: lowercase letters, digits, '-' and
// '.', at most 253 characters; never "." or "..". Path segments are taken
// as they are, not decoded, so an encoded '/' cannot hide in one.
bool IsName(std::string_view name) {
  if (name.empty() || name.size() > 253 || name == "." || name == "..") return false;
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) {
      return false;
    }
  }
  return true;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool IsTrue(std::string_view value) { return !value.empty() && value != "0" && value != "false"; }

Status CheckPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return InvalidArgument("bad port in the query");
  int value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return InvalidArgument("bad port in the query");
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > 65535) return InvalidArgument("bad port in the query");
  return Status();
}

}  // namespace

Result<KubeletRequest> ParseKubeletRequest(std::string_view target) {
  const size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  if (path.empty() || path.front() != '/') return NotFound("not a kubelet API path");
  const std::vector<std::string_view> segments = Split(path.substr(1), '/');

  static const std::map<std::string_view, KubeletAction> kActions = {
      {"containerLogs", KubeletAction::kContainerLogs},
      {"exec", KubeletAction::kExec},
      {"attach", KubeletAction::kAttach},
      {"portForward", KubeletAction::kPortForward}};
  const auto action = kActions.find(segments.front());
  if (action == kActions.end()) {
    return NotFound("this kubelet endpoint serves logs, exec, attach and port-forward only");
  }
  KubeletRequest request;
  request.action = action->second;
  // <ns>/<pod>/<container> (logs; exec and attach may add a UID before the
  // container), or <ns>/<pod>[/<uid>] for port forwarding.
  const size_t names = segments.size() - 1;
  const bool forward = request.action == KubeletAction::kPortForward;
  const bool uid_allowed = request.action != KubeletAction::kContainerLogs;
  const size_t plain = forward ? 2 : 3;
  if (names != plain && !(uid_allowed && names == plain + 1)) {
    return NotFound("not a kubelet API path");
  }
  request.pod_namespace = std::string(segments[1]);
  request.pod = std::string(segments[2]);
  if (!forward) request.container = std::string(segments.back());
  if (!IsName(request.pod_namespace) || !IsName(request.pod) ||
      (!forward && !IsName(request.container))) {
    return InvalidArgument("namespace, pod and container must be Kubernetes names");
  }
  if (names == plain + 1 && !IsName(segments[3])) {
    return InvalidArgument("a pod UID is a Kubernetes name");
  }

  if (!forward) request.host_query.emplace_back("container", request.container);
  if (query.empty()) return request;
  for (std::string_view pair : Split(query, '&')) {
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    const std::string_view key = pair.substr(0, equals);
    VT_ASSIGN_OR_RETURN(
        std::string value,
        Decode(equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1)));
    switch (request.action) {
      case KubeletAction::kContainerLogs: {
        // The kubelet's names are the host API's (pods/log).
        static const char* const kLogParameters[] = {"follow",       "previous",  "timestamps",
                                                     "sinceSeconds", "sinceTime", "tailLines",
                                                     "limitBytes",   "stream"};
        for (const char* name : kLogParameters) {
          if (key == name) request.host_query.emplace_back(name, value);
        }
        break;
      }
      case KubeletAction::kExec:
      case KubeletAction::kAttach: {
        static const std::map<std::string_view, std::string_view> kStreams = {
            {"input", "stdin"}, {"output", "stdout"}, {"error", "stderr"}, {"tty", "tty"}};
        if (const auto stream = kStreams.find(key); stream != kStreams.end()) {
          if (IsTrue(value)) request.host_query.emplace_back(stream->second, "true");
        } else if (key == "command" && request.action == KubeletAction::kExec) {
          request.host_query.emplace_back("command", value);
        }
        break;
      }
      case KubeletAction::kPortForward:
        if (key == "port") {
          for (std::string_view port : Split(value, ',')) {
            VT_RETURN_IF_ERROR(CheckPort(port));
            request.host_query.emplace_back("ports", std::string(port));
          }
        }
        break;
    }
  }
  return request;
}

std::string HostRequestTarget(const KubeletRequest& request, std::string_view host_namespace,
                              std::string_view host_name) {
  static const std::map<KubeletAction, std::string_view> kSubresources = {
      {KubeletAction::kContainerLogs, "log"},
      {KubeletAction::kExec, "exec"},
      {KubeletAction::kAttach, "attach"},
      {KubeletAction::kPortForward, "portforward"}};
  std::string target = "/api/v1/namespaces/" + kube::EscapeQueryValue(host_namespace) + "/pods/" +
                       kube::EscapeQueryValue(host_name) + "/" +
                       std::string(kSubresources.at(request.action));
  char separator = '?';
  for (const auto& [key, value] : request.host_query) {
    target += separator + key + "=" + kube::EscapeQueryValue(value);
    separator = '&';
  }
  return target;
}

}  // namespace vtenant::syncer
