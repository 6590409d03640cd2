/*
 * sockets_nodelay.h - TCP_NODELAY on the TCP sockets a process holds (sockets_nodelay.c):
 * what aes-mpi does just before MPI_Finalize, so that the last small messages to the
 * launcher leave at once instead of waiting out a delayed acknowledgement.
 */
#ifndef CIPHERSWEEP_SOCKETS_NODELAY_H
#define CIPHERSWEEP_SOCKETS_NODELAY_H

/* Sets TCP_NODELAY on every open TCP socket (stream, IPv4 or IPv6) of this process and
 * returns how many it set; other descriptors are left as they are. */
int cs_sockets_nodelay(void);

#endif
