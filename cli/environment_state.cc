#include "cli/environment_state.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/secret_file.h"

namespace vtenant::cli {
namespace fs = std::filesystem;

namespace {

void EmitComponent(YAML::Emitter& out, const ComponentRecord& record) {
  const localenv::Component& c = record.component;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << c.name;
  out << YAML::Key << "pid" << YAML::Value << record.pid;
  out << YAML::Key << "restarts" << YAML::Value << record.restarts;
  out << YAML::Key << "lastExit" << YAML::Value << record.last_exit;
  out << YAML::Key << "argv" << YAML::Value << YAML::BeginSeq;
  for (const std::string& arg : c.process.argv) out << YAML::DoubleQuoted << arg;
  out << YAML::EndSeq;
  out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : c.process.env) {
    out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  }
  out << YAML::EndMap;
  out << YAML::Key << "log" << YAML::Value << c.process.log_path;
  out << YAML::Key << "workingDir" << YAML::Value << c.process.working_dir;
  if (c.process.umask) {
    // Octal, as umask(1) prints it: the real node's containerd and kubelet
    // need 022 where the environment runs under 077.
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(*c.process.umask));
    out << YAML::Key << "umask" << YAML::Value << YAML::DoubleQuoted << text;
  }
  out << YAML::Key << "restartAfter" << YAML::Value << YAML::Flow << c.restart_after;
  out << YAML::Key << "health" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "url" << YAML::Value << c.health.url;
  out << YAML::Key << "kubeconfig" << YAML::Value << c.health.kubeconfig;
  out << YAML::Key << "etcdDir" << YAML::Value << c.health.etcd_dir;
  out << YAML::Key << "insecure" << YAML::Value << c.health.insecure;
  out << YAML::EndMap << YAML::EndMap;
}

ComponentRecord ParseComponent(const YAML::Node& node) {
  ComponentRecord record;
  localenv::Component& c = record.component;
  c.name = node["name"].as<std::string>();
  record.pid = node["pid"].as<pid_t>(-1);
  record.restarts = node["restarts"].as<int>(0);
  record.last_exit = node["lastExit"].as<std::string>("");
  for (const auto& arg : node["argv"]) c.process.argv.push_back(arg.as<std::string>());
  for (const auto& kv : node["env"]) {
    c.process.env[kv.first.as<std::string>()] = kv.second.as<std::string>();
  }
  c.process.log_path = node["log"].as<std::string>("");
  c.process.working_dir = node["workingDir"].as<std::string>("");
  c.process.die_with_parent = false;
  if (const std::string umask = node["umask"].as<std::string>(""); !umask.empty()) {
    char* end = nullptr;
    const unsigned long mask = std::strtoul(umask.c_str(), &end, 8);
    if (*end != '\0' || mask > 0777) {
      throw YAML::ParserException(node["umask"].Mark(), "umask \"" + umask + "\" is not octal");
    }
    c.process.umask = static_cast<mode_t>(mask);
  }
  for (const auto& name : node["restartAfter"]) c.restart_after.push_back(name.as<std::string>());
  const YAML::Node health = node["health"];
  c.health.url = health["url"].as<std::string>("");
  c.health.kubeconfig = health["kubeconfig"].as<std::string>("");
  c.health.etcd_dir = health["etcdDir"].as<std::string>("");
  c.health.insecure = health["insecure"].as<bool>(false);
  return record;
}

}  // namespace

Status EnvironmentState::Save(const std::string& dir) const {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "kubeconfig" << YAML::Value << kubeconfig;
  out << YAML::Key << "supervisorPid" << YAML::Value << supervisor_pid;
  out << YAML::Key << "phase" << YAML::Value << phase;
  out << YAML::Key << "message" << YAML::Value << message;
  out << YAML::Key << "components" << YAML::Value << YAML::BeginSeq;
  for (const ComponentRecord& record : components) EmitComponent(out, record);
  out << YAML::EndSeq << YAML::EndMap;
  // The state folder holds every credential of the environment: owner-only.
  // Written beside and renamed, so `up` and `status` never read half of it.
  const std::string tmp = dir + "/state.yaml.tmp";
  VT_RETURN_IF_ERROR(WriteSecretFile(tmp, std::string(out.c_str()) + "\n"));
  std::error_code ec;
  fs::rename(tmp, dir + "/state.yaml", ec);
  if (ec) return Internal("saving " + dir + "/state.yaml: " + ec.message());
  return Status::Ok();
}

Result<EnvironmentState> EnvironmentState::Load(const std::string& dir) {
  const std::string path = dir + "/state.yaml";
  if (!fs::exists(path)) return NotFound("no local environment in " + dir);
  try {
    YAML::Node root = YAML::LoadFile(path);
    EnvironmentState state;
    state.kubeconfig = root["kubeconfig"].as<std::string>("");
    state.supervisor_pid = root["supervisorPid"].as<pid_t>(-1);
    state.phase = root["phase"].as<std::string>("");
    state.message = root["message"].as<std::string>("");
    for (const auto& node : root["components"]) state.components.push_back(ParseComponent(node));
    return state;
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + " is damaged (" + e.what() + ")");
  }
}

std::string ProgramOf(const localenv::Component& component) {
  const std::vector<std::string>& argv = component.process.argv;
  if (argv.empty()) return component.name;
  // The real node's programs run through nsenter, which execs them: the
  // process is the program after "--".
  if (fs::path(argv[0]).filename() == "nsenter") {
    auto dashes = std::find(argv.begin(), argv.end(), "--");
    if (dashes != argv.end() && dashes + 1 != argv.end()) {
      return fs::path(*(dashes + 1)).filename().string();
    }
  }
  return fs::path(argv[0]).filename().string();
}

bool EnvironmentState::SupervisorRunning() const {
  // The supervisor is this CLI, under either of its names.
  return localenv::ProcessRuns(supervisor_pid, "vtenant", "") ||
         localenv::ProcessRuns(supervisor_pid, "kubectl-vtenant", "");
}

std::vector<std::string> EnvironmentState::Alive() const {
  std::vector<std::string> alive;
  for (const ComponentRecord& record : components) {
    if (localenv::ProcessRuns(record.pid, ProgramOf(record.component), "")) {
      alive.push_back(record.component.name);
    }
  }
  return alive;
}

const ComponentRecord* EnvironmentState::Find(const std::string& name) const {
  for (const ComponentRecord& record : components) {
    if (record.component.name == name) return &record;
  }
  return nullptr;
}

}  // namespace vtenant::cli
