// The real node (`vtenant up --real-node-gpu`): a pod with the locally built
// busybox image starts on a kubelet, `kubectl logs` and `kubectl exec` reach
// it from the host, and nothing of the node is reachable from, or talks to,
// the machine's network: its programs run in the environment's own network
// namespace, and the relays beside it touch loopback only.
#include "localenv/real_node.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "base/eventually.h"
#include "base/file.h"
#include "e2e/support/environment.h"
#include "e2e/support/kubectl.h"
#include "e2e/support/real_node.h"
#include "e2e/support/real_node_suite.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "kube/resource.h"
#include "kube/tls_stream.h"
#include "localenv/command.h"
#include "localenv/environment_processes.h"
#include "localenv/process.h"
#include "localenv/tools.h"

namespace vtenant::e2e {
namespace {
namespace fs = std::filesystem;

// A socket of the root network namespace (this test's), from /proc/net/tcp*.
struct RootSocket {
  std::string local, remote;  // hex "0100007F:1F90"
  int state = 0;              // 0x0A: LISTEN
};

// The sockets of the network namespace `pid` is in, by inode, from its
// /proc/<pid>/net/<file> for each of `files` (tcp, tcp6, udp, udp6).
std::map<std::string, RootSocket> SocketsOf(const std::string& pid,
                                            const std::vector<std::string>& files) {
  std::map<std::string, RootSocket> by_inode;
  for (const std::string& file : files) {
    std::ifstream in("/proc/" + pid + "/net/" + file);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      by_inode[inode] = {local, remote, std::stoi(state, nullptr, 16)};
    }
  }
  return by_inode;
}

std::map<std::string, RootSocket> RootTcpSockets() { return SocketsOf("self", {"tcp", "tcp6"}); }

// True for 127.0.0.0/8 and ::1 (and ::ffff:127.x) in /proc/net/tcp's hex.
bool IsLoopback(const std::string& address) {
  const std::string host = address.substr(0, address.find(':'));
  if (host.size() == 8) return host.substr(6, 2) == "7F";  // little-endian IPv4
  if (host == "00000000000000000000000001000000") return true;
  if (host.size() == 32 && host.substr(0, 24) == "0000000000000000FFFF0000") {
    return host.substr(30, 2) == "7F";
  }
  return false;
}

std::set<std::string> SocketInodes(pid_t pid) {
  std::set<std::string> inodes;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    const std::string target = fs::read_symlink(fd.path(), link_ec).string();
    if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  return inodes;
}

std::string NetnsOf(pid_t pid) {
  std::error_code ec;
  return fs::read_symlink("/proc/" + std::to_string(pid) + "/ns/net", ec).string();
}

// The relays: `vtenant relay` processes of the folder's node namespace.
std::vector<pid_t> RelayPids(const std::string& dir) {
  const std::string marker =
      std::string("relay") + '\0' + "--netns" + '\0' + localenv::NetnsName(dir) + '\0';
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = ReadFileOrEmpty(entry.path() / "cmdline");
    if (cmdline.find(marker) != std::string::npos) {
      pids.push_back(std::stoi(name));
    }
  }
  return pids;
}

// `kubectl port-forward pod/<pod> 0:8080` with `kubeconfig` (its output in
// `log`), then a GET of / through it: the page, or what went wrong.
std::string PageThroughPortForward(const std::string& kubeconfig, const std::string& pod,
                                   const std::string& log) {
  Result<std::string> kubectl = localenv::FindTool("kubectl");
  if (!kubectl.ok()) return kubectl.status().ToString();
  Result<localenv::Process> forward =
      localenv::Process::Start({.argv = {*kubectl, "--kubeconfig", kubeconfig, "port-forward",
                                         "pod/" + pod, "--address", "127.0.0.1", "0:8080"},
                                .log_path = log});
  if (!forward.ok()) return forward.status().ToString();
  const int port = ForwardedPort(log);
  if (port == 0) return "no port forwarded: " + ReadFileOrEmpty(log);
  Result<localenv::CommandResult> fetched = localenv::RunCommand(
      {"/bin/busybox", "wget", "-q", "-O", "-", "http://127.0.0.1:" + std::to_string(port) + "/"});
  forward->Stop();
  if (!fetched.ok()) return fetched.status().ToString();
  return fetched->out + fetched->err + ReadFileOrEmpty(log);
}

// Each test applies the example and waits for its teams itself, in the
// same few lines, so that any one of them runs alone under --gtest_filter.
class RealNodeTest : public RealNodeSuite {
 protected:
  static void SetUpTestSuite() {
    const auto begin = std::chrono::steady_clock::now();
    Up(VTENANT_CLI, "realnode", "examples/nodes/l40s.yaml", {"--real-node-gpu"});
    if (env_ == nullptr) return;
    std::cout << "vtenant up --real-node-gpu took "
              << std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - begin)
                     .count()
              << " ms; it said:\n"
              << env_->up_output() << std::endl;
  }

  // How a busybox pod reaches the real node: by its name (a pod of the
  // host's), or by the real node's label (a team's pod, which the syncer
  // copies to the host with that selector).
  enum class Placement { kNodeName, kRealNodeLabel };

  // A busybox pod in namespace default. `command` is the container's
  // command; `container_fields` and `spec_fields` are further fields of the
  // container and of the spec.
  static kube::JsonObject BusyboxPod(const std::string& name, Placement placement,
                                     kube::JsonArray command,
                                     const kube::JsonObject& container_fields = {},
                                     const kube::JsonObject& spec_fields = {}) {
    kube::JsonObject container{{"name", "main"},
                               {"image", BusyboxImage()},
                               {"imagePullPolicy", "IfNotPresent"},
                               {"command", std::move(command)}};
    for (const auto& [key, value] : container_fields.members()) container.Set(key, value);
    kube::JsonObject spec;
    if (placement == Placement::kNodeName) {
      spec.Set("nodeName", "vtenant-node");
    } else {
      spec.Set("nodeSelector", kube::JsonObject{{"vtenant.dev/real-node", "true"}});
    }
    spec.Set("restartPolicy", "Never").Set("terminationGracePeriodSeconds", 1);
    for (const auto& [key, value] : spec_fields.members()) spec.Set(key, value);
    spec.Set("containers", kube::JsonArray{std::move(container)});
    return kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", kube::JsonObject{{"name", name}, {"namespace", "default"}}},
        {"spec", std::move(spec)}};
  }
  // A Service of one port in front of the pods labelled app=<name>.
  static kube::JsonObject Service(const std::string& name, const std::string& ns, int port) {
    return kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
        {"spec", kube::JsonObject{{"selector", kube::JsonObject{{"app", name}}},
                                  {"ports", kube::JsonArray{kube::JsonObject{{"port", port}}}}}}};
  }
  // `object` as text for `kubectl apply -f -`: JSON, which is YAML.
  static std::string Manifest(const kube::JsonValue& object) {
    return kube::ToJson(kube::BuildJson(object));
  }
  // `items` as one List, which kubectl applies item by item, in order.
  static kube::JsonObject List(kube::JsonArray items) {
    return kube::JsonObject{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
  }

  // The port of `team`'s virtual API server, from its Tenant's
  // status.endpoint; the Get's error when there is no Tenant.
  static Result<std::string> ApiServerPortOf(const std::string& team) {
    Result<kube::Object> tenant = env_->host().Get(kube::resources::kTenants, "", team);
    if (!tenant.ok()) return tenant.status();
    const std::string endpoint(kube::GetString(*tenant, {"status", "endpoint"}));
    return endpoint.substr(endpoint.rfind(':') + 1);
  }

  // `command` run by the host's admin (kubectl exec) in nlp's host pod
  // `host_pod`, with `input` on its stdin when there is any.
  static Result<std::string> ExecInNlpHostPod(const std::string& host_pod,
                                              const std::vector<std::string>& command,
                                              const std::string& input = {}) {
    std::vector<std::string> args = {"exec", "-n", "vtenant-nlp", host_pod};
    if (!input.empty()) args.push_back("-i");
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return env_->HostKubectl(args, input);
  }

  // `script` under sh -c, as a container's command.
  static kube::JsonArray Sh(const std::string& script) {
    return kube::JsonArray{"sh", "-c", script};
  }

  // A pod of a team's, in namespace default, for the real node: busybox
  // running `command` under sh -c.
  static kube::JsonObject TeamPodOnTheRealNode(const std::string& name,
                                               const std::string& command) {
    return BusyboxPod(name, Placement::kRealNodeLabel, Sh(command));
  }

  // Waits (at most 120 s) until `team`'s pod `name`, in namespace default,
  // is Ready.
  static Status WaitTeamPodReady(const std::string& team, const std::string& name) {
    return env_
        ->TeamKubectl(team, {"wait", "--for=condition=Ready", "pod/" + name, "--timeout=120s"})
        .status();
  }
};

TEST_F(RealNodeTest, LocalImagePodRunsAndLogsAndExecReachIt) {
  const std::string image = BusyboxImage();
  ASSERT_NE(image.find("localhost/vtenant/busybox:"), std::string::npos) << image;
  const std::string pod =
      Manifest(BusyboxPod("hello", Placement::kNodeName,
                          Sh("echo hello from $(hostname) on the real node; exec sleep 3600")));
  const auto begin = std::chrono::steady_clock::now();
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", "-"}, pod).ok());
  Result<std::string> ready = env_->HostKubectl(
      {"wait", "--for=condition=Ready", "pod/hello", "-n", "default", "--timeout=120s"});
  ASSERT_TRUE(ready.ok()) << ready.status().ToString() << "\n"
                          << env_->HostKubectl({"describe", "pod", "hello"}).value_or("");
  std::cout << "pod Ready "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - begin)
                   .count()
            << " ms after kubectl apply" << std::endl;

  // The CNI bridge gave it an address of the node's pod range.
  Result<std::string> ip =
      env_->HostKubectl({"get", "pod", "hello", "-o", "jsonpath={.status.podIP}"});
  ASSERT_TRUE(ip.ok());
  EXPECT_EQ(ip->rfind("10.244.0.", 0), 0u) << *ip;

  // kubectl logs: the API server reaches the kubelet through the egress relay.
  Result<std::string> logs = env_->HostKubectl({"logs", "hello", "-n", "default"});
  ASSERT_TRUE(logs.ok()) << logs.status().ToString();
  EXPECT_NE(logs->find("hello from hello on the real node"), std::string::npos) << *logs;

  // kubectl exec: a new process in the running container.
  Result<std::string> exec =
      env_->HostKubectl({"exec", "hello", "-n", "default", "--", "sh", "-c", "echo exec:$((6*7))"});
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_NE(exec->find("exec:42"), std::string::npos) << *exec;

  EXPECT_TRUE(env_->HostKubectl({"delete", "pod", "hello", "--wait=true"}).ok());
}

// kubectl port-forward: the API server reaches the kubelet through the
// egress relay, the kubelet containerd's streaming server on the node's
// loopback, and containerd the pod's port inside the pod's namespace.
TEST_F(RealNodeTest, PortForwardReachesAPortInsideThePod) {
  const std::string pod = Manifest(BusyboxPod(
      "web", Placement::kNodeName,
      Sh("mkdir -p /www && echo served-by-the-pod > /www/index.html && exec httpd -f -p 8080 -h "
         "/www")));
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", "-"}, pod).ok());
  ASSERT_TRUE(env_->HostKubectl({"wait", "--for=condition=Ready", "pod/web", "-n", "default",
                                 "--timeout=120s"})
                  .ok());
  const std::string page =
      PageThroughPortForward(env_->host_kubeconfig(), "web", env_->dir() + "/port-forward.log");
  EXPECT_NE(page.find("served-by-the-pod"), std::string::npos) << page;
  EXPECT_TRUE(env_->HostKubectl({"delete", "pod", "web", "--wait=true"}).ok());
}

// --real-node-gpu: the node advertises one GPU as a simulated node does,
// and a pod that asks for it is admitted by the kubelet and runs.
TEST_F(RealNodeTest, TheNodeAdvertisesAGpuThatAPodCanTake) {
  Result<kube::Object> node = env_->host().Get(kube::resources::kNodes, "", "vtenant-node");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(kube::GetString(*node, {"status", "allocatable", "nvidia.com/gpu"}), "1");
  EXPECT_EQ(kube::GetString(*node, {"metadata", "labels", "nvidia.com/gpu.present"}), "true");
  EXPECT_EQ(kube::GetString(*node, {"metadata", "labels", "nvidia.com/gpu.product"}),
            "NVIDIA-L40S");
  EXPECT_EQ(kube::GetString(*node, {"metadata", "labels", "vtenant.dev/real-node"}), "true");
  const std::string pod = Manifest(BusyboxPod(
      "gpu-hello", Placement::kNodeName, Sh("echo has a gpu; exec sleep 3600"),
      {{"resources", kube::JsonObject{{"limits", kube::JsonObject{{"nvidia.com/gpu", 1}}}}}}));
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", "-"}, pod).ok());
  Result<std::string> ready = env_->HostKubectl(
      {"wait", "--for=condition=Ready", "pod/gpu-hello", "-n", "default", "--timeout=120s"});
  ASSERT_TRUE(ready.ok()) << ready.status().ToString() << "\n"
                          << env_->HostKubectl({"describe", "pod", "gpu-hello"}).value_or("");
  Result<std::string> logs = env_->HostKubectl({"logs", "gpu-hello", "-n", "default"});
  ASSERT_TRUE(logs.ok());
  EXPECT_NE(logs->find("has a gpu"), std::string::npos) << *logs;
  EXPECT_TRUE(env_->HostKubectl({"delete", "pod", "gpu-hello", "--wait=true"}).ok());
}

// A team's pod: created with the team's own kubeconfig in its virtual
// cluster, copied to the host by the syncer, placed on the real node, and
// started there with the service-account token and the
// KUBERNETES_SERVICE_* of its own cluster that the syncer gave it.
TEST_F(RealNodeTest, ATeamsPodRunsOnTheRealNodeWithItsOwnClustersCredentials) {
  ASSERT_TRUE(env_->HostKubectl({"apply", "-k", Example("")}).ok());
  ASSERT_TRUE(env_->WaitForTeam("nlp").ok());
  Result<std::string> api_port = ApiServerPortOf("nlp");
  ASSERT_TRUE(api_port.ok());
  const std::string port = *api_port;
  ASSERT_FALSE(port.empty());
  const std::string pod = Manifest(TeamPodOnTheRealNode(
      "whoami",
      R"(echo port=$KUBERNETES_SERVICE_PORT namespace=`cat /var/run/secrets/kubernetes.io/serviceaccount/namespace` token-bytes=`wc -c < /var/run/secrets/kubernetes.io/serviceaccount/token`; exec sleep 3600)"));
  ASSERT_TRUE(env_->TeamKubectl("nlp", {"apply", "-f", "-"}, pod).ok());
  Status ready = WaitTeamPodReady("nlp", "whoami");
  ASSERT_TRUE(ready.ok()) << ready.ToString();
  const std::string host_pod = "whoami-x-default-x-nlp";
  Result<kube::Object> copy = env_->host().Get(kube::resources::kPods, "vtenant-nlp", host_pod);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ(kube::GetString(*copy, {"spec", "nodeName"}), "vtenant-node");
  Result<std::string> logs = env_->HostKubectl({"logs", "-n", "vtenant-nlp", host_pod});
  ASSERT_TRUE(logs.ok()) << logs.status().ToString();
  // The virtual cluster's port and namespace, and a token of some length.
  EXPECT_NE(logs->find("port=" + port + " namespace=default token-bytes="), std::string::npos)
      << *logs;
  EXPECT_EQ(logs->find("token-bytes=0"), std::string::npos) << *logs;
  EXPECT_TRUE(env_->TeamKubectl("nlp", {"delete", "pod", "whoami", "--wait=true"}).ok());
}

// A team's `kubectl logs`, `exec`, `attach` and `port-forward`, with its own
// kubeconfig against its own cluster, reach its pod on the real node: the
// virtual API server sends them to the virtual Node's kubelet endpoint, the
// syncer's, which relays them to the host pod's subresources.
TEST_F(RealNodeTest, ATeamsKubectlLogsExecAttachAndPortForwardReachItsPod) {
  ASSERT_TRUE(env_->HostKubectl({"apply", "-k", Example("")}).ok());
  ASSERT_TRUE(env_->WaitForTeam("nlp").ok());
  const std::string pod = Manifest(TeamPodOnTheRealNode(
      "talker",
      R"(mkdir -p /www && echo served-to-nlp > /www/index.html && httpd -p 8080 -h /www && echo nlp-says-hello && while true; do echo tick; sleep 1; done)"));
  ASSERT_TRUE(env_->TeamKubectl("nlp", {"apply", "-f", "-"}, pod).ok());
  Status ready = WaitTeamPodReady("nlp", "talker");
  ASSERT_TRUE(ready.ok()) << ready.ToString();

  // The virtual Node is the syncer's endpoint, not the host node's address.
  Result<std::string> address = env_->TeamKubectl(
      "nlp", {"get", "node", "vtenant-node", "-o", "jsonpath={.status.addresses[*].address}"});
  ASSERT_TRUE(address.ok());
  EXPECT_EQ(*address, "127.0.0.1");

  Result<std::string> logs = env_->TeamKubectl("nlp", {"logs", "talker", "--tail=-1"});
  ASSERT_TRUE(logs.ok()) << logs.status().ToString();
  EXPECT_NE(logs->find("nlp-says-hello"), std::string::npos) << *logs;

  Result<std::string> exec =
      env_->TeamKubectl("nlp", {"exec", "talker", "--", "sh", "-c", "echo exec:$((6*7))"});
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_NE(exec->find("exec:42"), std::string::npos) << *exec;
  // With stdin: the bytes go in through the relay and come back out.
  Result<std::string> exec_stdin =
      env_->TeamKubectl("nlp", {"exec", "-i", "talker", "--", "tr", "a-z", "A-Z"}, "shout\n");
  ASSERT_TRUE(exec_stdin.ok()) << exec_stdin.status().ToString();
  EXPECT_NE(exec_stdin->find("SHOUT"), std::string::npos) << *exec_stdin;

  Result<std::string> kubectl = localenv::FindTool("kubectl");
  ASSERT_TRUE(kubectl.ok());
  // attach streams the running container's output until stopped.
  const std::string attach_log = env_->dir() + "/team-attach.log";
  Result<localenv::Process> attach = localenv::Process::Start(
      {.argv = {*kubectl, "--kubeconfig", env_->TeamKubeconfig("nlp"), "attach", "talker"},
       .log_path = attach_log});
  ASSERT_TRUE(attach.ok()) << attach.status().ToString();
  EXPECT_TRUE(
      Eventually([&] { return ReadFileOrEmpty(attach_log).find("tick") != std::string::npos; },
                 std::chrono::seconds(60), std::chrono::milliseconds(200)))
      << ReadFileOrEmpty(attach_log);
  attach->Stop();

  const std::string page = PageThroughPortForward(env_->TeamKubeconfig("nlp"), "talker",
                                                  env_->dir() + "/team-port-forward.log");
  EXPECT_NE(page.find("served-to-nlp"), std::string::npos) << page;
  EXPECT_TRUE(env_->TeamKubectl("nlp", {"delete", "pod", "talker", "--wait=true"}).ok());
}

// The syncer's kubelet endpoint answers the virtual API server of its own
// tenant about that tenant's pods, and nobody else. The attacks: nlp, which
// is cluster-admin in its cluster, points its virtual Node at vision's
// endpoint, so nlp's API server presents its kubelet-client certificate
// there (played here by presenting that certificate directly); a team
// presents its own credential; vision's API server asks for a pod only nlp
// has. vision's pod holds a secret that must never come back.
TEST_F(RealNodeTest, AKubeletEndpointServesOnlyItsOwnTenantsApiServerAndPods) {
  ASSERT_TRUE(env_->HostKubectl({"apply", "-k", Example("")}).ok());
  ASSERT_TRUE(env_->WaitForTeam("nlp").ok());
  ASSERT_TRUE(env_->WaitForTeam("vision").ok());
  const std::string pod =
      Manifest(TeamPodOnTheRealNode("keeper", R"(echo vision-secret-7781; exec sleep 3600)"));
  ASSERT_TRUE(env_->TeamKubectl("vision", {"apply", "-f", "-"}, pod).ok());
  ASSERT_TRUE(WaitTeamPodReady("vision", "keeper").ok());
  // nlp cannot name it in its own cluster.
  Result<localenv::CommandResult> from_nlp = env_->TeamKubectlRaw("nlp", {"logs", "keeper"});
  ASSERT_TRUE(from_nlp.ok());
  EXPECT_NE(from_nlp->exit_code, 0);
  EXPECT_EQ((from_nlp->out + from_nlp->err).find("vision-secret-7781"), std::string::npos);

  const std::string tenants = env_->dir() + "/operator/tenants/";
  auto pem = [&](const std::string& tenant, const std::string& file) {
    return ReadFileOrEmpty(tenants + tenant + "/apiserver/pki/" + file);
  };
  std::string vision_port = ReadFileOrEmpty(tenants + "vision/syncer-kubelet-port");
  while (!vision_port.empty() && vision_port.back() == '\n') vision_port.pop_back();
  ASSERT_FALSE(vision_port.empty());
  // What comes back from vision's endpoint for `request` made with
  // `certificate`/`key`, or why nothing did.
  auto ask_vision = [&](const std::string& certificate, const std::string& key,
                        const std::string& request) -> std::string {
    Result<std::unique_ptr<kube::TlsStream>> stream =
        kube::DialTls({.server = "https://127.0.0.1:" + vision_port,
                       .ca_pem = pem("vision", "ca.crt"),
                       .client_certificate_pem = certificate,
                       .client_key_pem = key},
                      std::chrono::seconds(10));
    if (!stream.ok()) return "dial: " + stream.status().message();
    if (!(*stream)->Write(request).ok()) return "write failed";
    std::string answer;
    char buffer[4096];
    while (true) {
      Result<size_t> n = (*stream)->Read(buffer, sizeof(buffer));
      if (!n.ok() || *n == 0) return answer.empty() && !n.ok() ? "read failed" : answer;
      answer.append(buffer, *n);
    }
  };
  const std::string logs_of_keeper =
      "GET /containerLogs/default/keeper/main HTTP/1.1\r\nHost: x\r\n\r\n";
  // Sanity: vision's own API server's certificate gets vision's logs, so
  // the refusals below are refusals and not a broken endpoint.
  const std::string own = ask_vision(pem("vision", "kubelet-client.crt"),
                                     pem("vision", "kubelet-client.key"), logs_of_keeper);
  EXPECT_NE(own.find("vision-secret-7781"), std::string::npos) << own;
  // nlp's API server (its Node pointed here): another CA, refused.
  const std::string as_nlp = ask_vision(pem("nlp", "kubelet-client.crt"),
                                        pem("nlp", "kubelet-client.key"), logs_of_keeper);
  EXPECT_EQ(as_nlp.find("vision-secret-7781"), std::string::npos) << as_nlp;
  EXPECT_EQ(as_nlp.find("200 OK"), std::string::npos) << as_nlp;
  // vision's control-plane admin: the right CA, not the API server's name.
  const std::string as_admin =
      ask_vision(pem("vision", "admin.crt"), pem("vision", "admin.key"), logs_of_keeper);
  EXPECT_NE(as_admin.find("403 Forbidden"), std::string::npos) << as_admin;
  EXPECT_EQ(as_admin.find("vision-secret-7781"), std::string::npos) << as_admin;
  // vision's API server asking about a pod vision does not have.
  const std::string elsewhere =
      ask_vision(pem("vision", "kubelet-client.crt"), pem("vision", "kubelet-client.key"),
                 "GET /containerLogs/default/talker/main HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(elsewhere.find("404 Not Found"), std::string::npos) << elsewhere;
  EXPECT_TRUE(env_->TeamKubectl("vision", {"delete", "pod", "keeper", "--wait=true"}).ok());
}

// The image the chart and the StatefulSet backend run, built here
// (hack/build-images.py --programs) and loaded with `vtenant load-image`:
// vtenant's programs and the control plane's start on the kubelet as the
// StatefulSet's containers do (a non-root user, a read-only root), under
// the image's own name and the control-plane names the operator asks for.
TEST_F(RealNodeTest, TheProgramsImageRunsVtenantAndTheControlPlane) {
  Result<std::vector<std::string>> refs = BuildAndLoadProgramsImage(*env_, VTENANT_BUILD_DIR);
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  ASSERT_GE(refs->size(), 2u);
  const std::string& vtenant_image = (*refs)[0];
  const std::string& apiserver_image = (*refs)[1];
  ASSERT_EQ(vtenant_image.rfind("localhost/vtenant/vtenant:", 0), 0u) << vtenant_image;
  ASSERT_EQ(apiserver_image, "localhost/vtenant/kube-apiserver:v1.37.2");

  const kube::JsonObject security{
      {"runAsUser", 65532},
      {"runAsNonRoot", true},
      {"readOnlyRootFilesystem", true},
      {"allowPrivilegeEscalation", false},
      {"capabilities", kube::JsonObject{{"drop", kube::JsonArray{"ALL"}}}}};
  const std::string pod = Manifest(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", kube::JsonObject{{"name", "programs"}, {"namespace", "default"}}},
      {"spec",
       kube::JsonObject{
           {"nodeName", "vtenant-node"},
           {"restartPolicy", "Never"},
           {"containers",
            kube::JsonArray{
                kube::JsonObject{
                    {"name", "vtenant"},
                    {"image", vtenant_image},
                    {"imagePullPolicy", "IfNotPresent"},
                    {"securityContext", security},
                    {"command",
                     kube::JsonArray{
                         "sh", "-c",
                         "for p in vtenant-operator vtenant-scheduler vtenant-syncer "
                         "vtenant-gpu-reservation vtenant; do $p --help >/dev/null 2>&1 && echo "
                         "$p-runs; done; etcd --version | head -1"}}},
                kube::JsonObject{{"name", "apiserver"},
                                 {"image", apiserver_image},
                                 {"imagePullPolicy", "IfNotPresent"},
                                 {"securityContext", security},
                                 {"command", kube::JsonArray{"kube-apiserver", "--version"}}}}}}}});
  ASSERT_TRUE(env_->HostKubectl({"apply", "-f", "-"}, pod).ok());
  Result<std::string> done = env_->HostKubectl(
      {"wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/programs", "--timeout=120s"});
  ASSERT_TRUE(done.ok()) << done.status().ToString() << "\n"
                         << env_->HostKubectl({"describe", "pod", "programs"}).value_or("");
  Result<std::string> logs = env_->HostKubectl({"logs", "programs", "-c", "vtenant"});
  ASSERT_TRUE(logs.ok());
  for (const char* line : {"vtenant-operator-runs", "vtenant-scheduler-runs", "vtenant-syncer-runs",
                           "vtenant-gpu-reservation-runs", "vtenant-runs", "etcd Version: "}) {
    EXPECT_NE(logs->find(line), std::string::npos) << line << " in\n" << *logs;
  }
  Result<std::string> version = env_->HostKubectl({"logs", "programs", "-c", "apiserver"});
  ASSERT_TRUE(version.ok());
  EXPECT_NE(version->find("Kubernetes v1.37.2"), std::string::npos) << *version;
  EXPECT_TRUE(env_->HostKubectl({"delete", "pod", "programs", "--wait=true"}).ok());
}

// The loopback ports etcd serves clients on in the environment (the host's,
// and the one the operator keeps the tenants' data in), from their command
// lines.
std::vector<std::string> EtcdClientPorts(const std::string& dir) {
  std::vector<std::string> ports;
  const std::string flag = "--listen-client-urls=https://127.0.0.1:";
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(dir)) {
    if (p.name != "etcd") continue;
    const std::string cmdline = ReadFileOrEmpty("/proc/" + std::to_string(p.pid) + "/cmdline");
    const size_t at = cmdline.find(flag);
    if (at == std::string::npos) continue;
    const size_t begin = at + flag.size();
    ports.push_back(cmdline.substr(begin, cmdline.find_first_not_of("0123456789", begin) - begin));
  }
  return ports;
}

// A team's pod on the real node calls its own virtual API server: at the
// node's address, where the tenant's syncer relays it into the node's
// namespace. kubectl, copied into the pod, finds it as any in-cluster
// client does (KUBERNETES_SERVICE_HOST/PORT, the token, ca.crt, which it
// verifies the serving certificate against, so the certificate must name
// the node's address), and lists the pods of its namespace there: the
// virtual cluster's, which the host's API server does not have. The relay
// leads to that API server only: the etcd ports on the machine's loopback
// are out of the pod's reach. (busybox's wget cannot be the client: its
// TLS sends no signature_algorithms, which Go's TLS 1.2 refuses.)
TEST_F(RealNodeTest, ATeamsPodCallsItsOwnVirtualApiServer) {
  ASSERT_TRUE(env_->HostKubectl({"apply", "-k", Example("")}).ok());
  ASSERT_TRUE(env_->WaitForTeam("nlp").ok());
  Result<std::string> api_port = ApiServerPortOf("nlp");
  ASSERT_TRUE(api_port.ok());
  const std::string port = *api_port;
  const std::vector<std::string> etcd_ports = EtcdClientPorts(env_->dir());
  ASSERT_EQ(etcd_ports.size(), 2u) << "the host's etcd and the tenants'";

  const std::string objects = Manifest(List(
      {kube::JsonObject{
           {"apiVersion", "rbac.authorization.k8s.io/v1"},
           {"kind", "Role"},
           {"metadata", kube::JsonObject{{"name", "pod-reader"}, {"namespace", "default"}}},
           {"rules", kube::JsonArray{kube::JsonObject{{"apiGroups", kube::JsonArray{""}},
                                                      {"resources", kube::JsonArray{"pods"}},
                                                      {"verbs", kube::JsonArray{"get", "list"}}}}}},
       kube::JsonObject{
           {"apiVersion", "rbac.authorization.k8s.io/v1"},
           {"kind", "RoleBinding"},
           {"metadata", kube::JsonObject{{"name", "default-reads-pods"}, {"namespace", "default"}}},
           {"roleRef", kube::JsonObject{{"apiGroup", "rbac.authorization.k8s.io"},
                                        {"kind", "Role"},
                                        {"name", "pod-reader"}}},
           {"subjects",
            kube::JsonArray{kube::JsonObject{
                {"kind", "ServiceAccount"}, {"name", "default"}, {"namespace", "default"}}}}},
       BusyboxPod("apicall", Placement::kRealNodeLabel, {"sleep", "3600"},
                  {{"volumeMounts",
                    kube::JsonArray{kube::JsonObject{{"name", "work"}, {"mountPath", "/work"}}}}},
                  {{"volumes", kube::JsonArray{kube::JsonObject{
                                   {"name", "work"}, {"emptyDir", kube::JsonObject{}}}}}})}));
  ASSERT_TRUE(env_->TeamKubectl("nlp", {"apply", "-f", "-"}, objects).ok());
  Status ready = WaitTeamPodReady("nlp", "apicall");
  ASSERT_TRUE(ready.ok()) << ready.ToString();
  const std::string host_pod = "apicall-x-default-x-nlp";
  auto in_pod = [&](const std::vector<std::string>& command, const std::string& input = {}) {
    return ExecInNlpHostPod(host_pod, command, input);
  };
  Result<std::string> kubectl = localenv::FindTool("kubectl");
  ASSERT_TRUE(kubectl.ok());
  ASSERT_TRUE(in_pod({"sh", "-c", "cat > /work/kubectl && chmod +x /work/kubectl"},
                     ReadFileOrEmpty(*kubectl))
                  .ok());

  // In-cluster kubectl: the node's address and the tenant's port; its own
  // pod, by its virtual name, in its virtual namespace.
  Result<std::string> listed = in_pod({"sh", "-c", "/work/kubectl get pods -o name -v=6 2>&1"});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_NE(listed->find(std::string("verb=\"GET\" url=\"https://") + localenv::kNodeIp + ":" +
                         port + "/api/v1/namespaces/default/pods?limit=500\" status=\"200 OK\""),
            std::string::npos)
      << *listed;
  EXPECT_NE(listed->find("pod/apicall\n"), std::string::npos) << *listed;
  EXPECT_FALSE(env_->host().Get(kube::resources::kPods, "default", "apicall").ok());

  // No way through to etcd, nor to the host's API server: nothing listens
  // there for the pods.
  Result<kube::RestConfig> host = kube::LoadKubeconfig(env_->host_kubeconfig());
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  std::vector<std::string> unreachable = etcd_ports;
  unreachable.push_back(host->server.substr(host->server.rfind(':') + 1));
  for (const std::string& p : unreachable) {
    Result<std::string> tried = in_pod({"sh", "-c",
                                        std::string("wget -q -O - http://") + localenv::kNodeIp +
                                            ":" + p + "/version 2>&1; true"});
    ASSERT_TRUE(tried.ok()) << tried.status().ToString();
    EXPECT_NE(tried->find("Connection refused"), std::string::npos) << p << ": " << *tried;
  }
  EXPECT_TRUE(env_->TeamKubectl("nlp", {"delete", "pod", "apicall", "--wait=true"}).ok());
}

// A team's pod on the real node resolves its own cluster's Services by
// name: its resolv.conf names the tenant's DNS (the host Service
// vtenant-dns, which kube-proxy on the node leads to the syncer's DNS
// socket in the node's namespace) with the search list of its namespace;
// a Service of its namespace by its short name, one of another namespace
// by its full name, kubernetes.default.svc... as its own API server; a name
// the cluster lacks is NXDOMAIN, and nothing is asked of any other server.
TEST_F(RealNodeTest, ATeamsPodResolvesItsOwnServicesByName) {
  ASSERT_TRUE(env_->HostKubectl({"apply", "-k", Example("")}).ok());
  ASSERT_TRUE(env_->WaitForTeam("nlp").ok());
  const std::string services =
      Manifest(List({kube::JsonObject{{"apiVersion", "v1"},
                                      {"kind", "Namespace"},
                                      {"metadata", kube::JsonObject{{"name", "store"}}}},
                     Service("web", "default", 80), Service("db", "store", 5432),
                     BusyboxPod("resolver", Placement::kRealNodeLabel, {"sleep", "3600"})}));
  ASSERT_TRUE(env_->TeamKubectl("nlp", {"apply", "-f", "-"}, services).ok());
  // The host copies' addresses, which kube-proxy routes.
  std::map<std::string, std::string> ips;
  ASSERT_TRUE(Eventually(
      [&] {
        for (const auto& [name, host_name] :
             {std::pair{"web", "web-x-default-x-nlp"}, {"db", "db-x-store-x-nlp"}}) {
          Result<kube::Object> copy =
              env_->host().Get(kube::resources::kServices, "vtenant-nlp", host_name);
          if (!copy.ok()) return false;
          ips[name] = std::string(kube::GetString(*copy, {"spec", "clusterIP"}));
        }
        return true;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(200)));
  Result<kube::Object> dns =
      env_->host().Get(kube::resources::kServices, "vtenant-nlp", "vtenant-dns");
  ASSERT_TRUE(dns.ok()) << dns.status().ToString();
  const std::string dns_ip(kube::GetString(*dns, {"spec", "clusterIP"}));
  Status ready = WaitTeamPodReady("nlp", "resolver");
  ASSERT_TRUE(ready.ok()) << ready.ToString();
  auto in_pod = [](const std::string& script) {
    return ExecInNlpHostPod("resolver-x-default-x-nlp", {"sh", "-c", script});
  };

  Result<std::string> conf = in_pod("cat /etc/resolv.conf");
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_NE(conf->find("nameserver " + dns_ip + "\n"), std::string::npos) << *conf;
  EXPECT_NE(conf->find("search default.svc.cluster.local svc.cluster.local cluster.local"),
            std::string::npos)
      << *conf;
  EXPECT_NE(conf->find("options ndots:5"), std::string::npos) << *conf;

  // busybox's nslookup tries the search list for a name without a dot
  // only, and asks for every domain of it (exiting 1 for the misses).
  struct Lookup {
    std::string name, fqdn, ip;
  };
  for (const Lookup& l : std::vector<Lookup>{
           {"web", "web.default.svc.cluster.local", ips["web"]},
           {"web.default.svc.cluster.local", "web.default.svc.cluster.local", ips["web"]},
           {"db.store.svc.cluster.local", "db.store.svc.cluster.local", ips["db"]},
           {"kubernetes.default.svc.cluster.local", "kubernetes.default.svc.cluster.local",
            localenv::kNodeIp}}) {
    Result<std::string> found = in_pod("nslookup -type=a " + l.name + " 2>&1; true");
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_NE(found->find("Name:\t" + l.fqdn + "\nAddress: " + l.ip + "\n"), std::string::npos)
        << l.name << ":\n"
        << *found;
  }
  // Not a Service: NXDOMAIN for each domain of the search list, no address.
  Result<std::string> missing = in_pod("nslookup -type=a nothing-here 2>&1; true");
  ASSERT_TRUE(missing.ok());
  EXPECT_NE(missing->find("can't find nothing-here.default.svc.cluster.local: NXDOMAIN"),
            std::string::npos)
      << *missing;
  EXPECT_EQ(missing->find("\nAddress: "), std::string::npos) << *missing;
  // A name outside the cluster is not forwarded anywhere: NXDOMAIN too.
  Result<std::string> outside = in_pod("nslookup -type=a example.com 2>&1; true");
  ASSERT_TRUE(outside.ok());
  EXPECT_NE(outside->find("can't find example.com: NXDOMAIN"), std::string::npos) << *outside;
  EXPECT_TRUE(env_->TeamKubectl("nlp", {"delete", "pod", "resolver", "--wait=true"}).ok());
}

// Every pod of the node can send a packet to every DNS server on it: the
// host's (for the host's own pods) and each tenant's syncer's. A team's
// pod asking another team's server, or the host's, learns no name: the
// other team's is silent, the host's refuses.
TEST_F(RealNodeTest, ATeamsPodHearsNoOtherClustersNames) {
  ASSERT_TRUE(env_->HostKubectl({"apply", "-k", Example("")}).ok());
  for (const char* team : {"nlp", "vision"}) ASSERT_TRUE(env_->WaitForTeam(team).ok()) << team;
  ASSERT_TRUE(env_->TeamKubectl("vision", {"apply", "-f", "-"},
                                Manifest(Service("secret-model", "default", 80)))
                  .ok());
  std::string vision_ip;
  ASSERT_TRUE(Eventually(
      [&] {
        Result<kube::Object> copy = env_->host().Get(kube::resources::kServices, "vtenant-vision",
                                                     "secret-model-x-default-x-vision");
        if (copy.ok()) vision_ip = std::string(kube::GetString(*copy, {"spec", "clusterIP"}));
        return !vision_ip.empty();
      },
      std::chrono::seconds(60), std::chrono::milliseconds(200)));
  Result<kube::Object> vision_dns =
      env_->host().Get(kube::resources::kServices, "vtenant-vision", "vtenant-dns");
  ASSERT_TRUE(vision_dns.ok()) << vision_dns.status().ToString();
  const std::string vision_dns_ip(kube::GetString(*vision_dns, {"spec", "clusterIP"}));

  ASSERT_TRUE(env_->TeamKubectl(
                      "nlp", {"apply", "-f", "-"},
                      Manifest(BusyboxPod("prober", Placement::kRealNodeLabel, {"sleep", "3600"})))
                  .ok());
  Status ready = WaitTeamPodReady("nlp", "prober");
  ASSERT_TRUE(ready.ok()) << ready.ToString();
  auto in_pod = [](const std::string& script) {
    return ExecInNlpHostPod("prober-x-default-x-nlp", {"sh", "-c", script});
  };
  // The pod does get answers, from its own cluster's server.
  Result<std::string> own =
      in_pod("nslookup -type=a kubernetes.default.svc.cluster.local 2>&1; true");
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_NE(own->find("Address: " + std::string(localenv::kNodeIp) + "\n"), std::string::npos)
      << *own;

  // Vision's server, asked for vision's Service: no answer at all.
  Result<std::string> other = in_pod(
      "nslookup -type=a -timeout=2 -retry=1 "
      "secret-model.default.svc.cluster.local " +
      vision_dns_ip + " 2>&1; true");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->find(vision_ip), std::string::npos) << *other;
  EXPECT_EQ(other->find("Name:"), std::string::npos) << *other;
  EXPECT_NE(other->find("timed out"), std::string::npos) << *other;

  // The host's server, at the node's address: refused, so neither the
  // host's `kubernetes` Service nor vision's host copy is named.
  for (const std::string& name :
       {std::string("kubernetes.default.svc.cluster.local"),
        std::string("secret-model-x-default-x-vision.vtenant-vision.svc.cluster.local")}) {
    Result<std::string> host = in_pod("nslookup -type=a -timeout=2 -retry=1 " + name + " " +
                                      std::string(localenv::kNodeIp) + " 2>&1; true");
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    EXPECT_NE(host->find("REFUSED"), std::string::npos) << name << ":\n" << *host;
    EXPECT_EQ(host->find("Name:"), std::string::npos) << name << ":\n" << *host;
    EXPECT_EQ(host->find(vision_ip), std::string::npos) << name << ":\n" << *host;
  }
  EXPECT_TRUE(env_->TeamKubectl("nlp", {"delete", "pod", "prober", "--wait=true"}).ok());
  EXPECT_TRUE(env_->TeamKubectl("vision", {"delete", "service", "secret-model"}).ok());
}

TEST_F(RealNodeTest, NothingOfTheNodeIsOnTheMachinesNetwork) {
  const std::string home = NetnsOf(getpid());
  // The node's programs: all in another namespace than this test's.
  std::vector<pid_t> node_pids;
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(env_->dir())) {
    if (p.name == "kubelet" || p.name == "kube-proxy" || p.name == "containerd" ||
        p.name == "containerd-shim-runc-v2") {
      node_pids.push_back(p.pid);
      EXPECT_NE(NetnsOf(p.pid), home) << p.name << " (pid " << p.pid << ") runs in "
                                      << "the machine's network namespace";
    }
  }
  EXPECT_GE(node_pids.size(), 3u) << "kubelet, kube-proxy and containerd should run";
  const std::vector<pid_t> relays = RelayPids(env_->dir());
  EXPECT_EQ(relays.size(), 2u);

  // Every socket of the node's programs and relays that lives in this
  // namespace: never a listener, and only ever to or from loopback.
  const std::map<std::string, RootSocket> root = RootTcpSockets();
  int loopback_connections = 0;
  std::vector<pid_t> all = node_pids;
  all.insert(all.end(), relays.begin(), relays.end());
  for (pid_t pid : all) {
    for (const std::string& inode : SocketInodes(pid)) {
      auto it = root.find(inode);
      if (it == root.end()) continue;  // in the node's namespace, or not TCP
      EXPECT_NE(it->second.state, 0x0A)
          << "pid " << pid << " listens on " << it->second.local << " in the machine's namespace";
      EXPECT_TRUE(IsLoopback(it->second.local) && IsLoopback(it->second.remote))
          << "pid " << pid << " has " << it->second.local << " -> " << it->second.remote;
      ++loopback_connections;
    }
  }
  // The inbound relay holds the kubelet's and kube-proxy's connections to
  // the API server: the check above looked at real sockets.
  EXPECT_GT(loopback_connections, 0);

  // The tenants' syncers open their pods' endpoints inside the node's
  // namespace: there, only at the node's address; in this namespace, only
  // on loopback (their health endpoints, their API servers).
  ASSERT_FALSE(node_pids.empty());
  const std::map<std::string, RootSocket> node =
      SocketsOf(std::to_string(node_pids.front()), {"tcp", "tcp6", "udp", "udp6"});
  const std::map<std::string, RootSocket> root_all =
      SocketsOf("self", {"tcp", "tcp6", "udp", "udp6"});
  const std::string node_ip_hex = "0200570A";  // 10.87.0.2, little-endian
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(env_->dir())) {
    if (p.name != "vtenant-syncer") continue;
    for (const std::string& inode : SocketInodes(p.pid)) {
      if (auto it = root_all.find(inode); it != root_all.end()) {
        EXPECT_TRUE(IsLoopback(it->second.local))
            << "syncer pid " << p.pid << " has " << it->second.local << " -> " << it->second.remote;
        if (it->second.state != 0x0A && it->second.remote.rfind("00000000:", 0) != 0) {
          EXPECT_TRUE(IsLoopback(it->second.remote))
              << "syncer pid " << p.pid << " has " << it->second.local << " -> "
              << it->second.remote;
        }
      } else if (auto in_node = node.find(inode); in_node != node.end()) {
        EXPECT_EQ(in_node->second.local.substr(0, 8), node_ip_hex)
            << "syncer pid " << p.pid << " has " << in_node->second.local
            << " in the node's namespace";
      }
    }
  }
}

}  // namespace
}  // namespace vtenant::e2e
