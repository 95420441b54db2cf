#include "rdf_readers/slot_ring.h"

void lw_slot_ring_init(LwSlotRing *r, size_t n)
{
  *r = (LwSlotRing){.n = n < 1 ? 1 : n > LW_SLOT_RING_MAX ? LW_SLOT_RING_MAX : n};
  pthread_mutex_init(&r->mutex, NULL);
  pthread_cond_init(&r->changed, NULL);
}

void lw_slot_ring_destroy(LwSlotRing *r)
{
  pthread_mutex_destroy(&r->mutex);
  pthread_cond_destroy(&r->changed);
}

int lw_slot_ring_fill_wait(LwSlotRing *r)
{
  int i = (int)(r->next_fill % r->n);
  pthread_mutex_lock(&r->mutex);
  while (r->ready[i] && !r->stopping) {
    pthread_cond_wait(&r->changed, &r->mutex);
  }
  if (r->stopping) {
    i = -1;
  }
  pthread_mutex_unlock(&r->mutex);
  return i;
}

void lw_slot_ring_publish(LwSlotRing *r)
{
  pthread_mutex_lock(&r->mutex);
  r->ready[r->next_fill % r->n] = true;
  r->next_fill++;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->mutex);
}

int lw_slot_ring_take_wait(LwSlotRing *r)
{
  int i = (int)(r->next_take % r->n);
  pthread_mutex_lock(&r->mutex);
  while (!r->ready[i]) {
    pthread_cond_wait(&r->changed, &r->mutex);
  }
  pthread_mutex_unlock(&r->mutex);
  return i;
}

void lw_slot_ring_release(LwSlotRing *r)
{
  pthread_mutex_lock(&r->mutex);
  r->ready[r->next_take % r->n] = false;
  r->next_take++;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->mutex);
}

void lw_slot_ring_stop(LwSlotRing *r)
{
  pthread_mutex_lock(&r->mutex);
  r->stopping = true;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->mutex);
}
