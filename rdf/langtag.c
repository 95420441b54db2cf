/*
 * BCP 47 well-formedness (RFC 5646 section 2.1), as a walk over the
 * hyphen-separated subtags: each subtag is classified by its length and
 * character class, and a small state machine says which kinds may follow.
 */
#include "rdf/rdf.h"

#include <string.h>
#include <strings.h>

/* The irregular and regular grandfathered tags of RFC 5646. Most regular
 * ones are well-formed anyway; listing them all keeps the rule simple. */
static const char *const grandfathered[] = {
  "en-GB-oed", "i-ami",     "i-bnn",     "i-default",  "i-enochian",  "i-hak",  "i-klingon",
  "i-lux",     "i-mingo",   "i-navajo",  "i-pwn",      "i-tao",       "i-tay",  "i-tsu",
  "sgn-BE-FR", "sgn-BE-NL", "sgn-CH-DE", "art-lojban", "cel-gaulish", "no-bok", "no-nyn",
  "zh-guoyu",  "zh-hakka",  "zh-min",    "zh-min-nan", "zh-xiang",
};

static bool is_alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* Character classes of one subtag. */
typedef struct {
  const char *s;
  size_t len;
  bool alpha; /* all letters */
  bool digit; /* all digits */
} Subtag;

static bool is_grandfathered(const char *tag, size_t len)
{
  for (size_t i = 0; i < sizeof(grandfathered) / sizeof(grandfathered[0]); ++i) {
    if (strlen(grandfathered[i]) == len && !strncasecmp(tag, grandfathered[i], len)) {
      return true;
    }
  }
  return false;
}

/* Reads the subtag at *pos (advancing past it and its trailing hyphen).
 * Returns false when a subtag is empty, longer than 8 or has a character
 * outside [A-Za-z0-9]. */
static bool next_subtag(const char *tag, size_t len, size_t *pos, Subtag *st)
{
  size_t i = *pos;
  st->s = tag + i;
  st->alpha = st->digit = true;
  while (i < len && tag[i] != '-') {
    char c = tag[i];
    if (is_alpha(c)) {
      st->digit = false;
    } else if (is_digit(c)) {
      st->alpha = false;
    } else {
      return false;
    }
    ++i;
  }
  st->len = (size_t)(i - *pos);
  if (st->len == 0 || st->len > 8) {
    return false;
  }
  if (i < len) {
    ++i; /* the hyphen */
    if (i == len) {
      return false; /* a trailing hyphen */
    }
  }
  *pos = i;
  return true;
}

enum {
  AFTER_LANGUAGE = 1, /* extlang (if 2-3 letters), script, region, ... */
  AFTER_EXTLANG,      /* another extlang (up to 3), script, region, ... */
  AFTER_SCRIPT,       /* region, variant, extension, private use */
  AFTER_REGION,       /* variant, extension, private use */
  IN_VARIANTS,        /* variant, extension, private use */
  IN_EXTENSION,       /* extension subtags (2-8), next singleton, x */
  IN_PRIVATE          /* private-use subtags (1-8) up to the end */
};

static bool is_variant(const Subtag *st)
{
  return (st->len >= 5) || (st->len == 4 && is_digit(st->s[0]));
}

static bool is_region(const Subtag *st)
{
  return (st->len == 2 && st->alpha) || (st->len == 3 && st->digit);
}

/* One step of the machine for a subtag after the language. */
static bool step(int *state, int *extlangs, const Subtag *st, bool *singletons,
                 size_t *ext_subtags)
{
  if (*state == IN_PRIVATE) {
    return true; /* 1-8 alphanum, checked by next_subtag */
  }
  if (st->len == 1) {
    char c = (char)(st->s[0] | 0x20);
    if (*state == IN_EXTENSION && *ext_subtags == 0) {
      return false; /* a singleton needs at least one subtag */
    }
    if (c == 'x') {
      *state = IN_PRIVATE;
      *ext_subtags = 0;
      return true;
    }
    unsigned idx = is_digit(c) ? (unsigned)(c - '0') : (unsigned)(c - 'a') + 10;
    if (singletons[idx]) {
      return false; /* RFC 5646 2.2.6: each singleton at most once */
    }
    singletons[idx] = true;
    *state = IN_EXTENSION;
    *ext_subtags = 0;
    return true;
  }
  if (*state == IN_EXTENSION) {
    ++*ext_subtags;
    return st->len >= 2;
  }
  if ((*state == AFTER_LANGUAGE || *state == AFTER_EXTLANG) && st->len == 3 && st->alpha) {
    if (*extlangs == -1 || *extlangs >= 3) {
      return false; /* no extlang after a 4+ letter language, at most 3 */
    }
    ++*extlangs;
    *state = AFTER_EXTLANG;
    return true;
  }
  if ((*state == AFTER_LANGUAGE || *state == AFTER_EXTLANG) && st->len == 4 && st->alpha) {
    *state = AFTER_SCRIPT;
    return true;
  }
  if (*state <= AFTER_SCRIPT && is_region(st)) {
    *state = AFTER_REGION;
    return true;
  }
  if (is_variant(st)) {
    *state = IN_VARIANTS;
    return true;
  }
  return false;
}

/* The RFC 5646 langtag and privateuse productions. */
static bool well_formed(const char *tag, size_t len)
{
  size_t pos = 0;
  Subtag st;
  if (!next_subtag(tag, len, &pos, &st)) {
    return false;
  }
  int state;
  int extlangs = 0; /* -1: the language may not take an extlang */
  bool singletons[36] = {false};
  size_t ext_subtags = 0;
  if (st.len == 1 && (st.s[0] | 0x20) == 'x') {
    state = IN_PRIVATE;
  } else if (st.alpha && st.len >= 2) {
    state = AFTER_LANGUAGE;
    extlangs = st.len <= 3 ? 0 : -1;
  } else {
    return false;
  }
  bool any_after_x = false;
  while (pos < len) {
    if (!next_subtag(tag, len, &pos, &st)) {
      return false;
    }
    if (state == IN_PRIVATE) {
      any_after_x = true;
    }
    if (!step(&state, &extlangs, &st, singletons, &ext_subtags)) {
      return false;
    }
  }
  if (state == IN_EXTENSION && ext_subtags == 0) {
    return false;
  }
  if (state == IN_PRIVATE && !any_after_x) {
    return false; /* "x" needs at least one subtag */
  }
  return true;
}

bool lw_langtag_valid_n(const char *tag, size_t len)
{
  if (!tag || len == 0) {
    return false;
  }
  /* The grammar first: the regular grandfathered tags fit it anyway, and
   * the list is only needed for the irregular ones. */
  return well_formed(tag, len) || is_grandfathered(tag, len);
}

bool lw_langtag_valid(const char *tag)
{
  return tag && lw_langtag_valid_n(tag, strlen(tag));
}
