#include "tests/support/error_count.h"

#include <stdio.h>

void lw_test_count_error(void *handle, unsigned line, unsigned column, const char *message)
{
  LwTestErrors *e = handle;
  if (e->errors++ == 0) {
    snprintf(e->first, sizeof(e->first), "%u:%u %s", line, column, message);
  }
}
