// Copyright 2026 The timingwheel Authors.
//
// A rolling upgrade past schema version 5: processes of the version before
// (schema 4) keep running and writing after a newer process migrated.
// Version 5 chose its partial indexes by `finished_us` instead of `state`,
// so it relies on "finished_us IS NULL exactly while state < 3". Every
// state change of a version-4 process keeps that (its completion, retry,
// requeue, takeover re-stamp and admin writes set or clear `finished_us`
// with the state, as version 5's do): rows it writes are loaded, fired and
// cleaned up by version 5. The statements below are version 4's forms of
// those writes (durable/ at 5da3797^), run on a version-5 schema.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "durable/sql/store.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

// Version 4's insert (no finished time), then its writes of each state.
constexpr char kVersion4Writes[] = R"sql(
INSERT INTO tw_timer (task_id, slot, due_us, state, payload, kind, priority)
SELECT convert_to(id, 'UTF8'), 0, tw_now_us() - 1000, 0, '\x70'::bytea, '', 0
FROM unnest(ARRAY['succeeded', 'failed', 'retried', 'snoozed', 'requeued',
                  'restamped', 'admin-retried', 'pending']) AS id;
-- The fire: SCHEDULED then RUNNING (the finished time untouched).
UPDATE tw_timer SET state = 2, epoch = 1
WHERE task_id <> convert_to('pending', 'UTF8');
-- Completion (version 4's kCompleteSql: outcome 0 success, 1 retry,
-- 2 failed, 3 snooze).
UPDATE tw_timer t
SET state = CASE c.outcome WHEN 0 THEN 3 WHEN 2 THEN 4 ELSE 0 END,
    due_us = CASE WHEN c.outcome IN (1, 3) THEN tw_now_us() - 1
                  ELSE t.due_us END,
    finished_us = CASE WHEN c.outcome IN (1, 3) THEN NULL ELSE tw_now_us() END,
    version = nextval('tw_version_seq')
FROM (VALUES ('succeeded', 0), ('failed', 2), ('retried', 1), ('snoozed', 3),
             ('admin-retried', 2))
     AS c(id, outcome)
WHERE t.task_id = convert_to(c.id, 'UTF8');
-- Requeue of an orphan and a takeover's re-stamp (attempts left).
UPDATE tw_timer
SET state = CASE WHEN state = 2 AND attempt >= 100 THEN 4 ELSE 0 END,
    finished_us = CASE WHEN state = 2 AND attempt >= 100 THEN tw_now_us() END,
    version = nextval('tw_version_seq')
WHERE task_id IN (convert_to('requeued', 'UTF8'),
                  convert_to('restamped', 'UTF8'))
  AND state IN (1, 2);
-- The admin retry of a FAILED task.
UPDATE tw_timer
SET state = 0, attempt = 0, epoch = 0, finished_us = NULL,
    due_us = tw_now_us() - 1, version = nextval('tw_version_seq')
WHERE task_id = convert_to('admin-retried', 'UTF8');
)sql";

TEST(RollingUpgradeTest, RowsAVersion4ProcessWritesFollowVersion5sRules) {
  auto db = TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  auto store = Store::Connect((*db)->conninfo());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->EnsureSchema(1).ok());
  ASSERT_TRUE(ExecSql((*db)->conninfo(), kVersion4Writes).ok());
  // Version 5's invariant holds on every row.
  auto broken =
      QueryInt((*db)->conninfo(),
               "SELECT count(*) FROM tw_timer WHERE (finished_us IS NULL) <> "
               "(state < 3)");
  ASSERT_TRUE(broken.ok()) << broken.status();
  EXPECT_EQ(*broken, 0);
  // Version 5 loads every unfinished row (PENDING again: 6 of them) ...
  auto slots = (*store)->Acquire("v5", 1, 10 * 1000 * 1000, 100, 1000000);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_EQ(slots->size(), 1u);
  auto claimed = (*store)->ClaimDue("v5", *slots, 1000000, 100);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  std::vector<std::string> ids;
  for (const WheelEntry& e : claimed->tasks) ids.push_back(e.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids,
            (std::vector<std::string>{"admin-retried", "pending", "requeued",
                                      "restamped", "retried", "snoozed"}));
  // ... and cleans up the finished ones.
  auto deleted = (*store)->DeleteFinished(*slots, -1000000, 100);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 2);  // "succeeded", "failed".
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
