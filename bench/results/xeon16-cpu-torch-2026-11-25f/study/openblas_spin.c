#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(){ void*h=dlopen("libopenblas.so.0",RTLD_NOW); dgemm_fn d=(dgemm_fn)dlsym(h,"cblas_dgemm");
 int n=1000; double*a=calloc(n*n,8),*b=calloc(n*n,8),*c=calloc(n*n,8);
 d(101,111,111,n,n,n,1,a,n,b,n,0,c,n);
 double c0=cpu(); usleep(200000); double c1=cpu(); printf("CPU during 200 ms idle after dgemm: %.1f ms\n",(c1-c0)*1e3); }
