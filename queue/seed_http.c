#include "queue/seed_http.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "queue/record.h"

/* One hop as a seed keeps it: its status, and its URI unless the seed's. */
static json_t *compact_hop(const json_t *hop, const char *seed_uri)
{
  json_t *out = json_object();
  json_t *status = json_object_get(hop, "status");
  const char *uri = json_string_value(json_object_get(hop, "uri"));
  if (out && json_is_integer(status)) {
    json_object_set(out, "status", status);
  }
  if (out && uri && (!seed_uri || strcmp(uri, seed_uri) != 0)) {
    json_object_set_new(out, "uri", json_string(uri));
  }
  return out;
}

json_t *lw_seed_http_compact(const json_t *hops, const char *seed_uri)
{
  json_t *out = json_is_array(hops) ? json_array() : NULL;
  size_t i;
  const json_t *hop;
  json_array_foreach(hops, i, hop) {
    if (!out || json_array_append_new(out, compact_hop(hop, seed_uri)) != 0) {
      json_decref(out);
      return NULL;
    }
  }
  return out;
}

const char *lw_seed_http_hop_uri(const json_t *hop, const char *seed_uri)
{
  const char *uri = json_string_value(json_object_get(hop, "uri"));
  return uri ? uri : seed_uri;
}

/* The Content-Type among a whole hop's headers (names as the server sent
 * them in records older than the lower-casing). */
static char *hop_content_type(const json_t *hop)
{
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)json_object_get(hop, "headers"), key, value) {
    if (!strcasecmp(key, "content-type") && json_is_string(value)) {
      return strdup(json_string_value(value));
    }
  }
  return NULL;
}

char *lw_seed_http_media_type(const json_t *seed)
{
  const char *type = lw_record_str(seed, "content_type", NULL);
  if (type && *type) {
    return strdup(type);
  }
  json_t *hops = json_loads(lw_record_str(seed, "http", "[]"), 0, NULL);
  size_t n = json_is_array(hops) ? json_array_size(hops) : 0;
  char *found = n > 0 ? hop_content_type(json_array_get(hops, n - 1)) : NULL;
  json_decref(hops);
  return found;
}
