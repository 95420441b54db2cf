/* Status codes: the queue's retry decision rests on lw_status_retryable. */
#include "base/base.h"
#include "tests/support/check.h"

int main(void)
{
  CHECK(!lw_status_retryable(LW_OK));
  CHECK(lw_status_retryable(LW_ERR_NET));
  CHECK(lw_status_retryable(LW_ERR_REDIS));
  CHECK(!lw_status_retryable(LW_ERR_SYNTAX));
  CHECK(!lw_status_retryable(LW_ERR_LIMIT));
  CHECK(!lw_status_retryable(LW_ERR_HTTP));

  LwError err;
  CHECK_INT_EQ(lw_error_set(&err, LW_ERR_IO, "cannot open %s", "x.nq"), LW_ERR_IO);
  CHECK_STR_EQ(err.message, "cannot open x.nq");
  CHECK_STR_EQ(lw_status_name(err.status), "io");
  CHECK_INT_EQ(lw_error_set(NULL, LW_ERR_NET, "ignored"), LW_ERR_NET);
  lw_error_clear(&err);
  CHECK_INT_EQ(err.status, LW_OK);
  CHECK_STR_EQ(err.message, "");
  return lw_test_finish();
}
