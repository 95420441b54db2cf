/*
 * A ring of slots between one producer thread and one consumer: the
 * producer fills slot after slot while they are free, the consumer takes
 * them in the same order and gives each back. The slots' contents are the
 * caller's (an array indexed by what the calls return); the ring only says
 * whose each one is. Used by the read-ahead threads of the readers
 * (prescan_thread.c, xml_feed_thread.c).
 */
#ifndef LW_SLOT_RING_H
#define LW_SLOT_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define LW_SLOT_RING_MAX 8

typedef struct {
  size_t n;
  bool ready[LW_SLOT_RING_MAX]; /* filled, not yet given back */
  unsigned long long next_fill;
  unsigned long long next_take;
  bool stopping;
  pthread_mutex_t mutex;
  pthread_cond_t changed;
} LwSlotRing;

/* n slots, 1 to LW_SLOT_RING_MAX. */
void lw_slot_ring_init(LwSlotRing *r, size_t n);
void lw_slot_ring_destroy(LwSlotRing *r);

/* Producer: waits until the slot to fill next is free and returns its
 * index; -1 once the ring is stopping. */
int lw_slot_ring_fill_wait(LwSlotRing *r);

/* Producer: the slot it filled is the consumer's. */
void lw_slot_ring_publish(LwSlotRing *r);

/* Consumer: waits for the next filled slot and returns its index. */
int lw_slot_ring_take_wait(LwSlotRing *r);

/* Consumer: gives the slot it took back to the producer. */
void lw_slot_ring_release(LwSlotRing *r);

/* Consumer: the producer stops at its next wait (join it after). */
void lw_slot_ring_stop(LwSlotRing *r);

#endif
