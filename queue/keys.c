#include "queue/keys.h"

#include <stdio.h>
#include <string.h>

LwKey lw_key(const char *prefix, const char *pattern, const char *arg)
{
  LwKey key;
  size_t n = (size_t)snprintf(key.s, sizeof(key.s), "%s", prefix ? prefix : "");
  if (n >= sizeof(key.s)) {
    return key;
  }
  const char *hole = strstr(pattern, "%s");
  if (!hole) {
    snprintf(key.s + n, sizeof(key.s) - n, "%s", pattern);
  } else {
    snprintf(key.s + n, sizeof(key.s) - n, "%.*s%s%s", (int)(hole - pattern), pattern,
             arg ? arg : "", hole + 2);
  }
  return key;
}
