/*
 * sockets_nodelay.c - TCP_NODELAY on this process's TCP sockets (see sockets_nodelay.h).
 *
 * Why aes-mpi asks for it before MPI_Finalize: a rank that mpirun starts speaks to
 * mpirun's PMIx server over a loopback TCP connection, which PMIx opens with Nagle's
 * algorithm on (RFC 896).  At finalization the rank writes a small message while its
 * previous one is not yet acknowledged; Nagle holds the new one back until that
 * acknowledgement, and the server's TCP delays it (RFC 1122, 4.2.3.2: up to 500 ms,
 * 40 ms on Linux).  Every launch then ends about 40 ms late.  Measured with Open MPI
 * 4.1.4 and PMIx 4.2.2 on 2 cores (20 launches of an MPI_Init, MPI_Barrier,
 * MPI_Finalize program): 89 ms a launch of 2 ranks, 33-46 ms with TCP_NODELAY set here.
 * Neither library has a parameter for it.  Nothing timed follows: the records are
 * written before, and MPI's own TCP transport already sets TCP_NODELAY on its sockets.
 */
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "sockets_nodelay.h"

/* where /proc is missing: the descriptors below this are looked at */
#define CS_FDS_WITHOUT_PROC 1024

/* 1 when fd is a TCP socket and TCP_NODELAY is now set on it, else 0. */
static int nodelay(int fd)
{
    int type = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
        return 0;
    struct sockaddr_storage addr;
    socklen_t alen = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &alen) != 0)
        return 0;
    if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)
        return 0;
    const int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0;
}

int cs_sockets_nodelay(void)
{
    int set = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = 0; fd < CS_FDS_WITHOUT_PROC; fd++)
            set += nodelay(fd);
        return set;
    }
    const int own = dirfd(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        const long fd = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == 0 && fd != own)
            set += nodelay((int)fd);
    }
    closedir(d);
    return set;
}
