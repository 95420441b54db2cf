/* libFuzzer target: format guessing never crashes, never reads beyond the
 * head, always says why, and gives the same answer twice. The first byte
 * picks the hints. */
#include "rdf/rdf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const media_types[] = {
  NULL,
  "text/turtle",
  "application/n-triples",
  "application/n-quads",
  "application/trig",
  "application/rdf+xml",
  "application/ld+json",
  "text/html",
  "text/plain; charset=utf-8",
};
static const char *const filenames[] = {
  NULL,    "a.ttl", "a.nt",     "a.nq.gz", "a.trig",
  "a.rdf", "a.owl", "a.jsonld", "a.html",  "http://example.org/x.ttl?y#z",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size == 0) {
    return 0;
  }
  const char *type = media_types[data[0] % (sizeof(media_types) / sizeof(media_types[0]))];
  const char *name = filenames[(data[0] / 16) % (sizeof(filenames) / sizeof(filenames[0]))];
  /* An exact-size copy, so that ASan sees any read past the head. */
  size_t len = size - 1;
  char *head = malloc(len ? len : 1);
  memcpy(head, data + 1, len);
  LwGuessInfo a, b;
  LwFormat fa = lw_guess_format(head, len, type, name, &a);
  LwFormat fb = lw_guess_format(head, len, type, name, &b);
  if (fa != fb || strcmp(a.reason, b.reason) || a.reason[0] == '\0' ||
      strlen(a.reason) >= LW_GUESS_REASON_MAX || a.start > len) {
    abort();
  }
  if (strcmp(lw_format_name(fa), "unknown") == 0 && fa != LW_FORMAT_UNKNOWN) {
    abort();
  }
  free(head);
  return 0;
}
