#include "queue/provider_version.h"

#include <stdio.h>
#include <string.h>

void lw_version_from_text(const char *time_text, const char *hash, LwVersion *v)
{
  memset(v, 0, sizeof(*v));
  LwDateTime dt;
  if (time_text && *time_text && lw_datetime_parse_str(time_text, &dt)) {
    v->has_time = true;
    v->usec = dt.usec;
  }
  if (hash) {
    snprintf(v->hash, sizeof(v->hash), "%s", hash);
  }
}

void lw_version_to_text(const LwVersion *v, char out[LW_DATETIME_BUF])
{
  if (v->has_time) {
    lw_datetime_format_usec(v->usec, out);
  } else {
    out[0] = '\0';
  }
}
