#include "kube/api_error.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

TEST(ApiErrorTest, AStatusBodyGivesItsReasonAndMessage) {
  const Status s = ApiError(
      409, R"({"kind":"Status","reason":"AlreadyExists","message":"pods \"a\" already exists"})",
      "POST /api/v1/namespaces/ns/pods");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), R"(pods "a" already exists)");
}

// A path nothing serves answers in plain text with a line break: the
// message stays one line, for the log line it becomes.
TEST(ApiErrorTest, AnyOtherBodyIsCutToOneLine) {
  const Status s = ApiError(404, "404 page not found\n", "list jobsets");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "list jobsets: HTTP 404: 404 page not found");
  EXPECT_EQ(ApiError(502, "<html>\r\n<body>bad\tgateway</body>\r\n</html>\r\n", "GET /x").message(),
            "GET /x: HTTP 502: <html>  <body>bad gateway</body>  </html>");
  EXPECT_EQ(ApiError(503, "", "GET /x").message(), "GET /x: HTTP 503");
  EXPECT_EQ(ApiError(500, std::string(600, 'x'), "GET /x").message().size(),
            std::string("GET /x: HTTP 500: ").size() + 500);
}

}  // namespace
}  // namespace vtenant::kube
