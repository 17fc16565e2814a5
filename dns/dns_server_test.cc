#include "dns/dns_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace vtenant::dns {
namespace {

// A UDP socket bound to a free loopback port, and that port.
std::pair<int, int> BoundLoopbackSocket() {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return {fd, ntohs(address.sin_port)};
}

// Each query gets its answer on the socket it came in on, the answerer
// told who asked; a query the answerer has nothing for gets nothing, and
// the server goes on.
TEST(DnsServerTest, AnswersEachQueryToItsSenderAndSkipsEmptyAnswers) {
  auto [server, port] = BoundLoopbackSocket();
  std::atomic<bool> stop{false};
  std::thread serving([&, fd = server] {
    ServeDnsQueries(
        fd,
        [](std::string_view query, std::string_view from) {
          return query == "silent"
                     ? std::string()
                     : "answer to " + std::string(query) + " from " + std::string(from);
        },
        [&] { return stop.load(); });
  });
  auto [client, client_port] = BoundLoopbackSocket();
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(static_cast<uint16_t>(port));
  for (const char* query : {"silent", "web"}) {
    ASSERT_GT(sendto(client, query, strlen(query), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to)),
              0);
  }
  char buffer[128];
  const ssize_t n = recv(client, buffer, sizeof(buffer), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(n)), "answer to web from 127.0.0.1");
  stop = true;
  serving.join();
  close(client);
  close(server);
}

}  // namespace
}  // namespace vtenant::dns
