/* Internals shared by fw_link.c (frames, reports, receiving, timers) and fw_session.c
 * (keys, seals, handshake, pairing). Not for applications: fw_link.h is their interface. */
#ifndef FW_LINK_IMPL_H
#define FW_LINK_IMPL_H

#include "fw_link.h"

/* Frames out: unsealed (seq, flags, ack 0), sealed with the next counter, a REFUSED. */
void fwi_plain(fw_link *l, uint8_t type, const uint8_t *payload, size_t n);
void fwi_sealed(fw_link *l, uint8_t type, uint8_t seq, uint8_t flags, const uint8_t *msg,
                size_t n);
void fwi_refused_frame(fw_link *l, uint32_t echo, const char *reason, size_t n);
/* Send queued reports into the window. */
void fwi_launch(fw_link *l);
/* The session is down (its HELLO ignored from now on); reports in flight go out again. */
void fwi_link_down(fw_link *l);
/* The handshake's frames, and pairing (fw_session.c). */
void fwi_on_hello(fw_link *l, uint8_t version, const uint8_t *p, size_t n);
void fwi_on_refused(fw_link *l, const uint8_t *p, size_t n);
void fwi_on_pair_request(fw_link *l, const uint8_t *p, size_t n);
/* A sealed frame the session's keys do not open, tried under a pending session's (section
 * 4c): true when it opened there (the old session down, the pending one joined: *last is
 * its counter); or the pending session joined because the old one fell silent. */
bool fwi_open_pending(fw_link *l, const uint8_t *f, size_t body, uint8_t *msg, size_t *n);
void fwi_join_pending(fw_link *l);
/* A sealed frame of the session opened while another was pending: that HELLO was forged. */
void fwi_forget_pending(fw_link *l);

#endif
