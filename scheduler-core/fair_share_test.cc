#include "scheduler-core/fair_share.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace vtenant::sched {
namespace {

struct QueueRow {
  std::string name;
  std::string parent;
  Milli quota;
  Milli limit;
  double weight;
  int priority = 0;
  int64_t created = 0;
  double usage = 0;  // of the cluster's GPUs over the usage window
};

// A world a row: capacity, queues, requests and the shares expected. The
// tables below are rows alike on purpose, each named for the rule it checks.
struct Case {
  std::string name;
  Milli gpus;  // cluster capacity, milli-GPU
  std::vector<QueueRow> queues;
  std::map<std::string, Milli> requested;  // leaves only
  std::map<std::string, Milli> expected;   // fair share of GPU
};

std::map<std::string, Milli> Divide(const Case& c, bool kai_exact = false,
                                    int64_t usage_k_milli = 1000) {
  std::vector<Queue> queues;
  std::map<std::string, QueueId> ids;
  for (const QueueRow& row : c.queues) {
    Queue q;
    q.name = row.name;
    q.parent = row.parent.empty() ? kNone : ids.at(row.parent);
    q.resources[kGpu] = {row.quota, row.limit, static_cast<int64_t>(row.weight * 1000)};
    q.priority = row.priority;
    q.creation_time = row.created;
    q.usage_ppm[kGpu] = static_cast<int64_t>(row.usage * 1'000'000);
    ids[row.name] = static_cast<QueueId>(queues.size());
    queues.push_back(q);
  }
  for (QueueId q = 0; q < queues.size(); ++q)
    if (queues[q].parent != kNone) queues[queues[q].parent].children.push_back(q);
  std::vector<ResourceVector> leaf(queues.size());
  for (const auto& [name, amount] : c.requested) leaf[ids.at(name)][kGpu] = amount;
  std::vector<ResourceVector> fair = ComputeFairShare(
      queues, RollUp(queues, leaf), MakeResources(c.gpus, 0, 0), kai_exact, usage_k_milli);
  std::map<std::string, Milli> out;
  for (QueueId q = 0; q < queues.size(); ++q) out[queues[q].name] = fair[q][kGpu];
  return out;
}

const std::vector<QueueRow> kMlOrg = {
    {"ml-org", "", 1000, 1000, 1},
    {"nlp", "ml-org", 330, 1000, 1},
    {"vision", "ml-org", 330, 1000, 1},
    {"recsys", "ml-org", 330, 1000, 1},
};

TEST(FairShareTest, Vectors) {
  const Case cases[] = {
      {"weights split what is over quota 3:1",
       100000,
       {{"q1", "", 10000, kUnlimited, 3}, {"q2", "", 10000, kUnlimited, 1}},
       {{"q1", 100000}, {"q2", 100000}},
       {{"q1", 70000}, {"q2", 30000}}},
      {"three teams on one L40S, each asking its 0.33: 330m each, 10m stays free",
       1000,
       kMlOrg,
       {{"nlp", 330}, {"vision", 330}, {"recsys", 330}},
       {{"ml-org", 990}, {"nlp", 330}, {"vision", 330}, {"recsys", 330}}},
      {"three teams on one L40S all wanting more: over quota is handed out in whole GPUs, so "
       "the 10m left goes whole to one team, the smallest name of equally old queues (nlp)",
       1000,
       kMlOrg,
       {{"nlp", 1000}, {"vision", 1000}, {"recsys", 1000}},
       {{"ml-org", 1000}, {"nlp", 340}, {"vision", 330}, {"recsys", 330}}},
      {"two teams idle: the busy one may use the whole GPU",
       1000,
       kMlOrg,
       {{"nlp", 1000}},
       {{"ml-org", 1000}, {"nlp", 1000}, {"vision", 0}, {"recsys", 0}}},
      {"quota is capped by what the queue requests",
       10000,
       {{"a", "", 5000, kUnlimited, 1}, {"b", "", 0, kUnlimited, 1}},
       {{"a", 1000}, {"b", 20000}},
       {{"a", 1000}, {"b", 9000}}},
      {"limit caps over-quota; the rest goes round again to others",
       100000,
       {{"a", "", 0, 20000, 1}, {"b", "", 0, kUnlimited, 1}},
       {{"a", 100000}, {"b", 100000}},
       {{"a", 20000}, {"b", 80000}}},
      {"quota -1 deserves everything it requests",
       8000,
       {{"a", "", kUnlimited, kUnlimited, 1}, {"b", "", 0, kUnlimited, 1}},
       {{"a", 5000}, {"b", 8000}},
       {{"a", 5000}, {"b", 3000}}},
      {"strict priority: the higher priority is satisfied before the lower sees over-quota",
       10000,
       {{"hi", "", 1000, kUnlimited, 1, 100}, {"lo", "", 1000, kUnlimited, 10, 0}},
       {{"hi", 7000}, {"lo", 10000}},
       {{"hi", 7000}, {"lo", 3000}}},
      {"weight 0 gets its quota and nothing more",
       10000,
       {{"a", "", 2000, kUnlimited, 0}, {"b", "", 2000, kUnlimited, 1}},
       {{"a", 10000}, {"b", 10000}},
       {{"a", 2000}, {"b", 8000}}},
      {"hierarchy: parents divide first, then their children",
       24000,
       {{"p1", "", 8000, kUnlimited, 1},
        {"p2", "", 8000, kUnlimited, 1},
        {"a", "p1", 2000, kUnlimited, 1},
        {"b", "p1", 2000, kUnlimited, 3},
        {"c", "p2", 0, kUnlimited, 1}},
       {{"a", 24000}, {"b", 24000}, {"c", 24000}},
       {{"p1", 12000}, {"p2", 12000}, {"a", 4000}, {"b", 8000}, {"c", 12000}}},
      {"nobody requests: nobody gets a share",
       8000,
       {{"a", "", 1000, kUnlimited, 1}},
       {},
       {{"a", 0}}},
      {"one GPU over quota is not split 2:1; it goes whole to the larger remainder",
       1000,
       {{"a", "", 0, kUnlimited, 2}, {"b", "", 0, kUnlimited, 1}},
       {{"a", 1000}, {"b", 1000}},
       // 1000*2/3 = 666.67m, 1000/3 = 333.33m: both floor to 0 GPUs; a's remainder is larger.
       {{"a", 1000}, {"b", 0}}},
      {"over quota in whole GPUs: 3.75 and 1.25 floor to 3 and 1, the fifth GPU goes to the "
       "larger remainder (0.75)",
       5000,
       {{"a", "", 0, kUnlimited, 3}, {"b", "", 0, kUnlimited, 1}},
       {{"a", 9000}, {"b", 9000}},
       {{"a", 4000}, {"b", 1000}}},
      {"equal remainders: the leftover GPU goes to the queue created first, not the first name",
       7000,
       {{"a", "", 0, kUnlimited, 1, 0, 30},
        {"b", "", 0, kUnlimited, 1, 0, 10},
        {"c", "", 0, kUnlimited, 1, 0, 20}},
       {{"a", 9000}, {"b", 9000}, {"c", 9000}},
       {{"a", 2000}, {"b", 3000}, {"c", 2000}}},
      {"quotas stay exact (330m); only what is over them comes in whole GPUs, the last one "
       "being what is left",
       2000,
       {{"a", "", 330, kUnlimited, 1}, {"b", "", 330, kUnlimited, 1}},
       {{"a", 5000}, {"b", 5000}},
       {{"a", 1330}, {"b", 670}}},
      {"a leftover GPU never goes past the request: a takes the 600m it asks for and the "
       "400m left goes to b (KAI would give a the whole GPU and b nothing)",
       1000,
       {{"a", "", 0, kUnlimited, 1}, {"b", "", 0, kUnlimited, 1}},
       {{"a", 600}, {"b", 600}},
       {{"a", 600}, {"b", 400}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Divide(c), c.expected) << c.name;
  }
}

TEST(FairShareTest, KaiExactReproducesKaisQuirks) {
  struct Pair {
    Case c;
    std::map<std::string, Milli> ours;
  };
  const Pair cases[] = {
      {{"a lone queue at its priority gets everything left, asked for or not",
        8000,
        {{"a", "", 1000, kUnlimited, 1}},
        {{"a", 2000}},
        {{"a", 8000}}},
       {{"a", 2000}}},
      {{"the higher priority's rounding leftover waits until the lower priority had its "
        "rounds",
        3000,
        {{"h1", "", 0, kUnlimited, 1, 10},
         {"h2", "", 0, kUnlimited, 1, 10},
         {"l", "", 0, kUnlimited, 1, 0}},
        {{"h1", 10000}, {"h2", 10000}, {"l", 10000}},
        {{"h1", 1000}, {"h2", 1000}, {"l", 1000}}},
       {{"h1", 2000}, {"h2", 1000}, {"l", 0}}},
      {{"a leftover unit goes past the request",
        1000,
        {{"a", "", 0, kUnlimited, 1}, {"b", "", 0, kUnlimited, 1}},
        {{"a", 600}, {"b", 600}},
        {{"a", 1000}, {"b", 0}}},
       {{"a", 600}, {"b", 400}}},
  };
  for (const Pair& p : cases) {
    EXPECT_EQ(Divide(p.c, /*kai_exact=*/true), p.c.expected) << "KAI: " << p.c.name;
    EXPECT_EQ(Divide(p.c), p.ours) << "ours: " << p.c.name;
  }
}

TEST(FairShareTest, NeverHandsOutMoreThanCapacityWhenQuotasFit) {
  // Ten queues with awkward weights: shares must add up to the capacity exactly.
  Case c{"sum", 7777, {}, {}, {}};
  for (int i = 0; i < 10; ++i) {
    std::string name = "q" + std::to_string(i);
    c.queues.push_back({name, "", 100 * i, kUnlimited, 1.0 + i * 0.7});
    c.requested[name] = 100000;
  }
  Milli sum = 0;
  for (const auto& [name, share] : Divide(c)) sum += share;
  EXPECT_EQ(sum, 7777);
}

// KAI's time-based fairshare: each over-quota round weighs a queue by
// max(0, w + k * (w - usage)), w its normalized weight; quotas stay.
TEST(FairShareTest, HistoricalUsageMovesOverQuotaShares) {
  struct UsageCase {
    Case c;
    int64_t k_milli;
  };
  auto two = [](Milli a_quota, double a_usage, double b_usage) {
    return std::vector<QueueRow>{{"a", "", a_quota, kUnlimited, 1, 0, 0, a_usage},
                                 {"b", "", 0, kUnlimited, 1, 0, 1, b_usage}};
  };
  const std::map<std::string, Milli> both = {{"a", 16000}, {"b", 16000}};
  const UsageCase cases[] = {
      {{"no history: even", 16000, two(0, 0, 0), both, {{"a", 8000}, {"b", 8000}}}, 1000},
      // Weights 0.5 and 1.0: 5.33 and 10.67 GPUs, floored, the leftover GPU
      // to the larger remainder.
      {{"a held half the cluster", 16000, two(0, 0.5, 0), both, {{"a", 5000}, {"b", 11000}}}, 1000},
      {{"a held all of it: nothing over quota",
        16000,
        two(0, 1, 0),
        both,
        {{"a", 0}, {"b", 16000}}},
       1000},
      {{"its quota stays", 16000, two(4000, 1, 0), both, {{"a", 4000}, {"b", 12000}}}, 1000},
      {{"a larger k weighs history more", 16000, two(0, 0.5, 0), both, {{"a", 4000}, {"b", 12000}}},
       2000},
      {{"k 0 turns it off", 16000, two(0, 1, 0), both, {{"a", 8000}, {"b", 8000}}}, 0},
      {{"equal history: even", 16000, two(0, 0.5, 0.5), both, {{"a", 8000}, {"b", 8000}}}, 1000},
  };
  for (const UsageCase& u : cases) {
    EXPECT_EQ(Divide(u.c, false, u.k_milli), u.c.expected) << u.c.name;
    EXPECT_EQ(Divide(u.c, true, u.k_milli), u.c.expected) << u.c.name << " (kai exact)";
  }
}

TEST(FairShareTest, RollUpSumsSubtrees) {
  std::vector<Queue> queues(3);
  queues[1].parent = 0;
  queues[2].parent = 0;
  std::vector<ResourceVector> leaf(3);
  leaf[1][kGpu] = 300;
  leaf[2][kGpu] = 400;
  std::vector<ResourceVector> total = RollUp(queues, leaf);
  EXPECT_EQ(total[0][kGpu], 700);
  EXPECT_EQ(total[1][kGpu], 300);
}

}  // namespace
}  // namespace vtenant::sched
