// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afalg: hold a cbc(aes) transform open through AF_ALG until killed, as
 * any program using the kernel's crypto from userspace does.  The
 * transform pins the cbc module.  Prints "ready" once it is allocated.
 */
#include <linux/if_alg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

int main(void)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	static const unsigned char key[16];
	int s, op;

	strcpy((char *)sa.salg_type, "skcipher");
	strcpy((char *)sa.salg_name, "cbc(aes)");
	s = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(s, SOL_ALG, ALG_SET_KEY, key, sizeof(key)) < 0) {
		perror("afalg: cbc(aes)");
		return 1;
	}
	op = accept(s, NULL, 0);
	if (op < 0) {
		perror("afalg: accept");
		return 1;
	}
	puts("ready");
	fflush(stdout);
	for (;;)
		pause();
}
