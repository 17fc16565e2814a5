// ServeInboundRelay on a loopback listener of this namespace: no network
// namespace, no root (netns_relay_test has those).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "localenv/netns_relay.h"
#include "localenv/testing/descriptors_exhausted.h"

namespace vtenant::localenv {
namespace {

// A TCP socket listening on 127.0.0.1 (any port, written to `address`)
// with `backlog`; -1 on failure.
int LoopbackListener(int backlog, sockaddr_in& address) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// With a connection waiting and no descriptor to accept it into, the
// listener stays readable: the relay must wait between tries, not spin.
TEST(InboundRelayTest, OutOfDescriptorsItWaitsInsteadOfSpinning) {
  sockaddr_in address{};
  const int listener = LoopbackListener(8, address);
  ASSERT_GE(listener, 0);
  const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(client, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);

  int turns = 0;
  Status served;
  {
    DescriptorsExhausted exhausted(0);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    served = ServeInboundRelay(listener, "127.0.0.1", 1, [&] {
      ++turns;
      return std::chrono::steady_clock::now() >= until;
    });
  }
  EXPECT_TRUE(served.ok()) << served.ToString();
  // About ten turns of 100 ms; a spinning loop makes many thousands.
  EXPECT_LT(turns, 50);
  EXPECT_GE(turns, 2);
  close(client);
  close(listener);
}

// A target whose accept queue is full drops new connections' SYNs, so a
// connect to it hangs for a minute. The relay must keep accepting (and
// asking stopped()) meanwhile.
TEST(InboundRelayTest, ATargetSlowToAnswerHoldsUpNothing) {
  sockaddr_in target{};
  const int target_listener = LoopbackListener(0, target);
  ASSERT_GE(target_listener, 0);
  std::vector<int> fillers;
  bool full = false;
  for (int i = 0; i < 16 && !full; ++i) {
    const int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(s, 0);
    fillers.push_back(s);
    connect(s, reinterpret_cast<sockaddr*>(&target), sizeof(target));
    pollfd connected{s, POLLOUT, 0};
    full = poll(&connected, 1, 300) == 0;
  }
  ASSERT_TRUE(full) << "the target's accept queue never filled";

  sockaddr_in relay{};
  const int relay_listener = LoopbackListener(8, relay);
  ASSERT_GE(relay_listener, 0);
  std::atomic<bool> stop = false;
  Status served;
  std::thread serving([&] {
    served = ServeInboundRelay(relay_listener, "127.0.0.1", ntohs(target.sin_port),
                               [&] { return stop.load(); });
  });
  const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_EQ(connect(client, reinterpret_cast<sockaddr*>(&relay), sizeof(relay)), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // accepted, connecting
  stop = true;
  const auto asked = std::chrono::steady_clock::now();
  serving.join();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(2));
  EXPECT_TRUE(served.ok()) << served.ToString();
  close(client);
  close(relay_listener);
  for (int s : fillers) close(s);
  close(target_listener);
}

}  // namespace
}  // namespace vtenant::localenv
