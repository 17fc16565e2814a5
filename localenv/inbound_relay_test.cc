// ServeInboundRelay on a loopback listener of this namespace: no network
// namespace, no root (netns_relay_test has those).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "localenv/netns_relay.h"
#include "localenv/testing/descriptors_exhausted.h"

namespace vtenant::localenv {
namespace {

// With a connection waiting and no descriptor to accept it into, the
// listener stays readable: the relay must wait between tries, not spin.
TEST(InboundRelayTest, OutOfDescriptorsItWaitsInsteadOfSpinning) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(listener, 8), 0);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
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

}  // namespace
}  // namespace vtenant::localenv
