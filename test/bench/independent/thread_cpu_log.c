/*
 * thread_cpu_log.c
 *	  An LD_PRELOAD library for peers_vs_core.sh: it leaves gettimeofday()
 *	  as it is and, at each call, appends to the file named by
 *	  BK_THREAD_CPU_LOG the calling thread's id, the wall time it returns
 *	  and that thread's CPU time (CLOCK_THREAD_CPUTIME_ID).  KOL brackets
 *	  its learning pass by two gettimeofday() calls in its main thread
 *	  (main.cpp, "Learning time") while another thread parses the input;
 *	  the CPU times of the two calls whose wall times differ by the
 *	  printed learning time give the learning's own CPU time, without the
 *	  reading on the other thread and without other processes' load.
 *	  Not part of the extension; peers_vs_core.sh builds it into a
 *	  temporary directory.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int
gettimeofday(struct timeval *tv, void *tz)
{
	static int	(*real) (struct timeval *, void *);
	struct timespec cpu;
	const char *path = getenv("BK_THREAD_CPU_LOG");
	int			rc;

	if (!real)
		real = (int (*) (struct timeval *, void *)) dlsym(RTLD_NEXT, "gettimeofday");
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	rc = real(tv, tz);
	if (path && rc == 0)
	{
		FILE	   *f = fopen(path, "a");

		if (f)
		{
			fprintf(f, "%ld %ld.%06ld %ld.%09ld\n", (long) gettid(), (long) tv->tv_sec, (long) tv->tv_usec,
					(long) cpu.tv_sec, (long) cpu.tv_nsec);
			fclose(f);
		}
	}
	return rc;
}
