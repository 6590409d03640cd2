/* test_sockets_nodelay.c - cs_sockets_nodelay (sockets_nodelay.c): TCP_NODELAY ends up
 * set on every TCP socket of the process (a listener, both ends of a loopback
 * connection) and on nothing else (a UNIX socket pair, a UDP socket, a pipe), which
 * still work afterwards. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "sockets_nodelay.h"

static int nodelay_of(int fd)
{
    int v = -1;
    socklen_t len = sizeof v;
    return getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len) == 0 ? v : -1;
}

int main(void)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    const int lst = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(lst >= 0 && bind(lst, (struct sockaddr *)&a, sizeof a) == 0 && listen(lst, 1) == 0 &&
              getsockname(lst, (struct sockaddr *)&a, &alen) == 0,
          "no loopback listener");
    const int cli = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(cli, (struct sockaddr *)&a, sizeof a) == 0, "no loopback connection");
    const int srv = accept(lst, NULL, NULL);
    int unx[2] = {-1, -1}, fds[2] = {-1, -1};
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, unx) == 0, "no socket pair");
    CHECK(pipe(fds) == 0, "no pipe");
    const int udp = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(nodelay_of(cli) == 0 && nodelay_of(srv) == 0, "TCP_NODELAY set before the call");

    const int set = cs_sockets_nodelay();
    CHECK(set == 3, "%d TCP sockets set, 3 expected", set);
    CHECK(nodelay_of(lst) == 1 && nodelay_of(cli) == 1 && nodelay_of(srv) == 1,
          "a TCP socket without TCP_NODELAY (%d %d %d)", nodelay_of(lst), nodelay_of(cli),
          nodelay_of(srv));
    CHECK(nodelay_of(unx[0]) == -1 && nodelay_of(udp) == -1, "TCP_NODELAY on a non-TCP socket");
    char b = 0;
    CHECK(write(cli, "x", 1) == 1 && read(srv, &b, 1) == 1 && b == 'x', "the connection broke");
    CHECK(write(unx[0], "y", 1) == 1 && read(unx[1], &b, 1) == 1 && b == 'y', "the pair broke");
    CHECK(write(fds[1], "z", 1) == 1 && read(fds[0], &b, 1) == 1 && b == 'z', "the pipe broke");
    CHECK(cs_sockets_nodelay() == 3, "a second call sets the same 3");

    printf("sockets_nodelay: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
