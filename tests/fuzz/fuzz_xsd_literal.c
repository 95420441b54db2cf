/* libFuzzer target: the literal validators never crash or read past the
 * lexical form, and agree with the datatype hierarchy (a valid int is a
 * valid long is a valid integer is a valid decimal, ...). The first byte
 * picks the datatype. */
#include "rdf/rdf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const types[] = {
  "integer",
  "long",
  "int",
  "short",
  "byte",
  "nonNegativeInteger",
  "positiveInteger",
  "nonPositiveInteger",
  "negativeInteger",
  "unsignedLong",
  "unsignedInt",
  "unsignedShort",
  "unsignedByte",
  "decimal",
  "double",
  "float",
  "boolean",
  "date",
  "dateTime",
  "dateTimeStamp",
  "time",
  "gYear",
  "gYearMonth",
  "gMonth",
  "gMonthDay",
  "gDay",
  "duration",
  "dayTimeDuration",
  "yearMonthDuration",
  "hexBinary",
  "base64Binary",
  "anyURI",
  "string",
  "normalizedString",
  "token",
  "language",
  "Name",
  "NCName",
  "NMTOKEN",
};

/* (narrower, wider): valid in the narrower type implies valid in the wider. */
static const char *const implies[][2] = {
  {"byte", "short"},
  {"short", "int"},
  {"int", "long"},
  {"long", "integer"},
  {"unsignedByte", "unsignedShort"},
  {"unsignedShort", "unsignedInt"},
  {"unsignedInt", "unsignedLong"},
  {"unsignedLong", "nonNegativeInteger"},
  {"positiveInteger", "nonNegativeInteger"},
  {"negativeInteger", "nonPositiveInteger"},
  {"nonNegativeInteger", "integer"},
  {"nonPositiveInteger", "integer"},
  {"integer", "decimal"},
  {"decimal", "double"},
  {"double", "float"},
  {"float", "double"},
  {"dateTimeStamp", "dateTime"},
  {"dayTimeDuration", "duration"},
  {"yearMonthDuration", "duration"},
  {"token", "normalizedString"},
  {"normalizedString", "string"},
  {"NCName", "Name"},
  {"Name", "NMTOKEN"},
  {"language", "token"},
};

static bool valid(const char *type, const char *lex, size_t len)
{
  char iri[96];
  strcpy(iri, LW_XSD_NS);
  strcat(iri, type);
  return lw_literal_valid(iri, lex, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size == 0) {
    return 0;
  }
  size_t len = size - 1;
  char *lex = malloc(len ? len : 1);
  memcpy(lex, data + 1, len);
  const char *type = types[data[0] % (sizeof(types) / sizeof(types[0]))];
  bool ok = valid(type, lex, len);
  if (valid(type, lex, len) != ok) {
    abort();
  }
  for (size_t i = 0; i < sizeof(implies) / sizeof(implies[0]); ++i) {
    if (valid(implies[i][0], lex, len) && !valid(implies[i][1], lex, len)) {
      abort();
    }
  }
  free(lex);
  return 0;
}
