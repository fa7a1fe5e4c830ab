# AX_PTHREAD_SIMPLE: find how to link POSIX threads (glibc: -pthread).
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  AC_MSG_CHECKING([for -pthread])
  save_CFLAGS=$CFLAGS; CFLAGS="$CFLAGS -pthread"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pthread.h>]], [[pthread_create(0,0,0,0);]])],
    [PTHREAD_CFLAGS=-pthread; PTHREAD_LIBS=-pthread; AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([POSIX threads are required])])
  CFLAGS=$save_CFLAGS
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])
