# kf_core_dir.m4 — autoconf's cleanups and our "core" source directory.
#
# KF_CORE_DIR_CLEANUPS (call before AC_INIT)
# ----------------------------------------------------------------------
# Autoconf and automake remove core dumps with "rm -f core ...".  Our
# top-level source directory is called "core", so rm refuses it: every
# compile test prints "rm: cannot remove 'core': Is a directory", and in
# configure's exit trap the failing rm short-circuits the "&&" chain that
# removes confdefs.h and conftest*, which are then left in the build
# directory (and `make distcheck` fails its distcleancheck).  This drops the
# bare "core" operand from those commands; a core dump named "core" cannot
# exist beside a directory of that name.  A macro this autoconf does not
# have is left alone.
AC_DEFUN([KF_CORE_DIR_CLEANUPS],
[_KF_DROP_RM_CORE([_AC_INIT_PREPARE])dnl
_KF_DROP_RM_CORE([_AC_COMPILE_IFELSE])dnl
_KF_DROP_RM_CORE([_AC_LINK_IFELSE])dnl
_KF_DROP_RM_CORE([_AC_RUN_IFELSE])dnl
_KF_DROP_RM_CORE([_AM_PROG_CC_C_O])])

# _KF_DROP_RM_CORE(MACRO): MACRO's definition with "rm -f core " made "rm -f ".
m4_define([_KF_DROP_RM_CORE],
[m4_ifdef([$1],
  [m4_define([$1], m4_bpatsubst(m4_dquote(m4_defn([$1])), [rm -f core ], [rm -f ]))])])
