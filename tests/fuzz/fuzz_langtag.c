/* libFuzzer target: language tags. Never crashes or reads past the tag;
 * case does not matter; a well-formed BCP 47 tag also matches xsd:language's
 * pattern. */
#include "rdf/rdf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *tag = malloc(size ? size : 1);
  memcpy(tag, data, size);
  bool ok = lw_langtag_valid_n(tag, size);
  for (size_t i = 0; i < size; ++i) {
    char c = tag[i];
    if (c >= 'a' && c <= 'z') {
      tag[i] = (char)(c - 32);
    } else if (c >= 'A' && c <= 'Z') {
      tag[i] = (char)(c + 32);
    }
  }
  if (lw_langtag_valid_n(tag, size) != ok) {
    abort();
  }
  if (ok && !lw_literal_valid(LW_XSD_NS "language", tag, size)) {
    abort();
  }
  char *z = malloc(size + 1);
  memcpy(z, data, size);
  z[size] = '\0';
  if (strlen(z) == size && lw_langtag_valid(z) != ok) {
    abort();
  }
  free(z);
  free(tag);
  return 0;
}
