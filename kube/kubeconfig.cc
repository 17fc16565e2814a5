#include "kube/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/base64.h"

namespace vtenant::kube {
namespace {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Finds the entry called `name` in a list of {name, <kind>: {...}}.
Result<YAML::Node> FindNamed(const YAML::Node& root, const std::string& list,
                             const std::string& kind, const std::string& name) {
  const YAML::Node items = root[list];
  if (items && items.IsSequence()) {
    for (const auto& item : items) {
      if (item["name"] && item["name"].as<std::string>() == name) {
        if (!item[kind] || !item[kind].IsMap()) {
          return InvalidArgument(list + " entry \"" + name + "\" has no " + kind + " map");
        }
        return item[kind];
      }
    }
  }
  return InvalidArgument("kubeconfig has no " + kind + " named \"" + name + "\" in " + list);
}

std::string Scalar(const YAML::Node& node, const char* key) {
  return node[key] && node[key].IsScalar() ? node[key].as<std::string>() : std::string();
}

// Reads `<key>-data` (base64) or `<key>` (a path), whichever is set.
Result<std::string> InlineOrFile(const YAML::Node& node, const std::string& key,
                                 const fs::path& base_dir) {
  std::string data = Scalar(node, (key + "-data").c_str());
  if (!data.empty()) return DecodeBase64(data, key + "-data");
  std::string path = Scalar(node, key.c_str());
  if (path.empty()) return std::string();
  fs::path p(path);
  if (p.is_relative() && !base_dir.empty()) p = base_dir / p;
  VT_ASSIGN_OR_RETURN(std::string contents, ReadFile(p.string()));
  return contents;
}

Result<RestConfig> ParseYaml(const YAML::Node& root, std::string_view wanted_context,
                             const fs::path& base_dir) {
  if (!root.IsMap()) return InvalidArgument("kubeconfig is not a YAML map");
  std::string context_name(wanted_context);
  if (context_name.empty()) context_name = Scalar(root, "current-context");
  if (context_name.empty()) {
    return InvalidArgument("kubeconfig has no current-context and none was named");
  }
  VT_ASSIGN_OR_RETURN(YAML::Node context, FindNamed(root, "contexts", "context", context_name));
  const std::string cluster_name = Scalar(context, "cluster");
  const std::string user_name = Scalar(context, "user");
  if (cluster_name.empty()) {
    return InvalidArgument("context \"" + context_name + "\" names no cluster");
  }
  VT_ASSIGN_OR_RETURN(YAML::Node cluster, FindNamed(root, "clusters", "cluster", cluster_name));

  RestConfig config;
  config.server = Scalar(cluster, "server");
  if (config.server.empty()) {
    return InvalidArgument("cluster \"" + cluster_name + "\" has no server");
  }
  while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
  config.insecure_skip_tls_verify = Scalar(cluster, "insecure-skip-tls-verify") == "true";
  VT_ASSIGN_OR_RETURN(config.ca_pem, InlineOrFile(cluster, "certificate-authority", base_dir));
  if (std::string ns = Scalar(context, "namespace"); !ns.empty()) config.default_namespace = ns;

  if (!user_name.empty()) {
    VT_ASSIGN_OR_RETURN(YAML::Node user, FindNamed(root, "users", "user", user_name));
    VT_ASSIGN_OR_RETURN(config.client_certificate_pem,
                        InlineOrFile(user, "client-certificate", base_dir));
    VT_ASSIGN_OR_RETURN(config.client_key_pem, InlineOrFile(user, "client-key", base_dir));
    config.bearer_token = Scalar(user, "token");
    if (std::string file = Scalar(user, "tokenFile"); !file.empty()) {
      fs::path p(file);
      config.bearer_token_file =
          (p.is_relative() && !base_dir.empty()) ? (base_dir / p).string() : file;
    }
    if (config.client_certificate_pem.empty() != config.client_key_pem.empty()) {
      return InvalidArgument("user \"" + user_name +
                             "\" has a client certificate without its key or a key without its "
                             "certificate");
    }
    if (user["exec"] || user["auth-provider"]) {
      return InvalidArgument("user \"" + user_name +
                             "\" uses an exec or auth-provider plugin, which vtenant does not run; "
                             "use a token or client certificate");
    }
  }
  return config;
}

}  // namespace

Result<RestConfig> ParseKubeconfig(std::string_view yaml_text, std::string_view context,
                                   std::string_view base_dir) {
  try {
    return ParseYaml(YAML::Load(std::string(yaml_text)), context, fs::path(base_dir));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(std::string("kubeconfig is not valid YAML: ") + e.what());
  }
}

Result<RestConfig> LoadKubeconfig(const std::string& path, std::string_view context) {
  VT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  Result<RestConfig> config =
      ParseKubeconfig(text, context, fs::absolute(fs::path(path)).parent_path().string());
  if (!config.ok()) return config.status().WithContext(path);
  return config;
}

Result<RestConfig> InClusterConfig(const std::string& secrets_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr) {
    return FailedPrecondition(
        "not running in a pod: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are unset");
  }
  RestConfig config;
  std::string h(host);
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  config.server = "https://" + h + ":" + port;
  VT_ASSIGN_OR_RETURN(config.ca_pem, ReadFile(secrets_dir + "/ca.crt"));
  if (!fs::exists(secrets_dir + "/token")) return NotFound("no token in " + secrets_dir);
  config.bearer_token_file = secrets_dir + "/token";
  if (auto ns = ReadFile(secrets_dir + "/namespace"); ns.ok() && !ns->empty()) {
    config.default_namespace = *ns;
  }
  return config;
}

Result<RestConfig> LoadDefaultConfig(const std::string& explicit_path) {
  if (!explicit_path.empty()) return LoadKubeconfig(explicit_path);
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string first(env);
    first = first.substr(0, first.find(':'));
    return LoadKubeconfig(first);
  }
  if (std::getenv("KUBERNETES_SERVICE_HOST") != nullptr) return InClusterConfig();
  const char* home = std::getenv("HOME");
  if (home == nullptr) return FailedPrecondition("no kubeconfig: set --kubeconfig or KUBECONFIG");
  return LoadKubeconfig(std::string(home) + "/.kube/config");
}

std::string RenderKubeconfig(const RestConfig& config, std::string_view name) {
  YAML::Emitter out;
  const std::string n(name);
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Config";
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << n;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "server" << YAML::Value << config.server;
  if (!config.ca_pem.empty()) {
    out << YAML::Key << "certificate-authority-data" << YAML::Value << EncodeBase64(config.ca_pem);
  }
  if (config.insecure_skip_tls_verify) {
    out << YAML::Key << "insecure-skip-tls-verify" << YAML::Value << true;
  }
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << n;
  out << YAML::Key << "user" << YAML::Value << YAML::BeginMap;
  if (!config.client_certificate_pem.empty()) {
    out << YAML::Key << "client-certificate-data" << YAML::Value
        << EncodeBase64(config.client_certificate_pem);
    out << YAML::Key << "client-key-data" << YAML::Value << EncodeBase64(config.client_key_pem);
  }
  if (!config.bearer_token.empty())
    out << YAML::Key << "token" << YAML::Value << config.bearer_token;
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << n;
  out << YAML::Key << "context" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cluster" << YAML::Value << n;
  out << YAML::Key << "user" << YAML::Value << n;
  if (config.default_namespace != "default") {
    out << YAML::Key << "namespace" << YAML::Value << config.default_namespace;
  }
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "current-context" << YAML::Value << n;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace vtenant::kube
