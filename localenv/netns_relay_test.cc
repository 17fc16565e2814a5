// The relays across the real node's network namespace, with a namespace of
// the test's own: the inbound relay listens only inside it and reaches
// loopback outside; the CONNECT proxy dials only inside it. Needs root
// (ip netns add); skips, saying so, without.
#include "localenv/netns_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "base/eventually.h"
#include "localenv/netns.h"

namespace vtenant::localenv {
namespace {

// A loopback echo server on `listener` (bound, listening): one reply per
// connection, then closes it.
void ServeEcho(int listener) {
  std::thread([listener] {
    while (true) {
      const int c = accept(listener, nullptr, nullptr);
      if (c < 0) return;
      char buffer[256];
      const ssize_t n = recv(c, buffer, sizeof(buffer), 0);
      if (n > 0) send(c, buffer, n, MSG_NOSIGNAL);
      close(c);
    }
  }).detach();
}

int Port(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

// Binds `fd` to 127.0.0.1:`port` (0: any) and listens.
bool ListenLoopback(int fd, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 && listen(fd, 16) == 0;
}

bool ConnectLoopback(int fd, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
}

std::string Exchange(int fd, const std::string& out) {
  send(fd, out.data(), out.size(), MSG_NOSIGNAL);
  std::string in;
  char buffer[256];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) in.append(buffer, n);
  return in;
}

class NetnsRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create a network namespace";
    netns_ = "vtenant-test-" + std::to_string(getpid());
    ASSERT_TRUE(EnsureNetns(netns_).ok());
    netns_fd_ = open(NetnsPath(netns_).c_str(), O_RDONLY | O_CLOEXEC);
    home_fd_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(netns_fd_, 0);
  }
  void TearDown() override {
    if (relay_ > 0) {
      kill(relay_, SIGKILL);
      waitpid(relay_, nullptr, 0);
    }
    if (netns_fd_ >= 0) close(netns_fd_);
    if (home_fd_ >= 0) close(home_fd_);
    if (!netns_.empty()) {
      EXPECT_TRUE(DeleteNetns(netns_).ok());
    }
  }
  // Runs `relay` in a child process (it never returns).
  void StartRelay(const std::function<Status()>& relay) {
    relay_ = fork();
    if (relay_ == 0) {
      Status ended = relay();  // a relay returns only when it fails
      _exit(ended.ok() ? 0 : 1);
    }
  }
  int SocketInside() { return SocketInNetns(netns_fd_, home_fd_, AF_INET, SOCK_STREAM).value(); }

  std::string netns_;
  int netns_fd_ = -1, home_fd_ = -1;
  pid_t relay_ = -1;
};

TEST_F(NetnsRelayTest, InboundRelayListensInsideAndReachesLoopbackOutside) {
  const int outside = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_TRUE(ListenLoopback(outside, 0));
  const int target = Port(outside);
  // The relay listens on the same port number inside, as the node's relay
  // does for the API server's.
  StartRelay([&] { return RunInboundRelay(netns_, "127.0.0.1", target, "127.0.0.1", target); });
  ServeEcho(outside);
  std::string reply;
  ASSERT_TRUE(Eventually(
      [&] {
        const int c = SocketInside();
        const bool ok = ConnectLoopback(c, target);
        if (ok) reply = Exchange(c, "ping");
        close(c);
        return ok;
      },
      std::chrono::seconds(10), std::chrono::milliseconds(20)));
  EXPECT_EQ(reply, "ping");
  // Inside, nothing but the relay: a port with no relay is refused there
  // although it listens outside.
  const int other = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_TRUE(ListenLoopback(other, 0));
  const int c = SocketInside();
  EXPECT_FALSE(ConnectLoopback(c, Port(other)));
  close(c);
}

// How many descriptors this process has open.
int OpenDescriptors() {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

TEST_F(NetnsRelayTest, AConnectProxyThatCannotListenLeavesNothingOpen) {
  const int before = OpenDescriptors();
  Status s = RunConnectProxy(netns_, "/nonexistent-vtenant-dir/relay.sock");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_EQ(OpenDescriptors(), before) << "its socket or namespace descriptors leaked";
}

TEST_F(NetnsRelayTest, ConnectProxyDialsInsideTheNamespaceOnly) {
  const std::string socket_path = "/tmp/vtenant-relay-test-" + std::to_string(getpid()) + ".sock";
  StartRelay([&] { return RunConnectProxy(netns_, socket_path); });
  const int inside = SocketInside();
  ASSERT_TRUE(ListenLoopback(inside, 0));
  ServeEcho(inside);
  // The same port outside is not what the proxy reaches.
  auto connect_via_proxy = [&](int port, std::string* head) {
    const int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket_path.c_str(), sizeof(a.sun_path) - 1);
    if (connect(c, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      close(c);
      return -1;
    }
    const std::string request =
        "CONNECT 127.0.0.1:" + std::to_string(port) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    send(c, request.data(), request.size(), MSG_NOSIGNAL);
    // The reply head, byte by byte, so nothing after it is consumed.
    head->clear();
    char ch;
    while (head->find("\r\n\r\n") == std::string::npos && recv(c, &ch, 1, 0) == 1) *head += ch;
    return c;
  };
  std::string head;
  int c = -1;
  ASSERT_TRUE(Eventually([&] { return (c = connect_via_proxy(Port(inside), &head)) >= 0; },
                         std::chrono::seconds(10), std::chrono::milliseconds(20)));
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u) << head;
  EXPECT_EQ(Exchange(c, "pong"), "pong");
  close(c);

  // A port that listens only outside the namespace: the proxy cannot reach it.
  const int outside = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_TRUE(ListenLoopback(outside, 0));
  c = connect_via_proxy(Port(outside), &head);
  ASSERT_GE(c, 0);
  EXPECT_EQ(head.rfind("HTTP/1.1 502", 0), 0u) << head;
  close(c);
  unlink(socket_path.c_str());
}

}  // namespace
}  // namespace vtenant::localenv
