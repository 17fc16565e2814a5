#include "cli/environment_state.h"

#include <signal.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "base/secret_file.h"

namespace vtenant::cli {

Status EnvironmentState::Save(const std::string& dir) const {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "kubeconfig" << YAML::Value << kubeconfig;
  out << YAML::Key << "processes" << YAML::Value << YAML::BeginSeq;
  for (const auto& [name, pid] : processes) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name << YAML::Key << "pid"
        << YAML::Value << pid << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  // The state folder holds every credential of the environment: owner-only.
  return WriteSecretFile(dir + "/state.yaml", std::string(out.c_str()) + "\n");
}

Result<EnvironmentState> EnvironmentState::Load(const std::string& dir) {
  const std::string path = dir + "/state.yaml";
  if (!std::filesystem::exists(path)) return NotFound("no local environment in " + dir);
  try {
    YAML::Node root = YAML::LoadFile(path);
    EnvironmentState state;
    state.kubeconfig = root["kubeconfig"].as<std::string>("");
    for (const auto& p : root["processes"]) {
      state.processes.emplace_back(p["name"].as<std::string>(), p["pid"].as<pid_t>());
    }
    return state;
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + " is damaged (" + e.what() + "); remove " + dir +
                           " after stopping its processes by hand");
  }
}

bool IsRecordedProcess(const std::string& name, pid_t pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  // After a reboot the pid may belong to something else: check the program.
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  std::string argv0;
  std::getline(cmdline, argv0, '\0');
  return std::filesystem::path(argv0).filename() == name;
}

std::vector<std::string> EnvironmentState::Alive() const {
  std::vector<std::string> alive;
  for (const auto& [name, pid] : processes) {
    if (IsRecordedProcess(name, pid)) alive.push_back(name);
  }
  return alive;
}

}  // namespace vtenant::cli
