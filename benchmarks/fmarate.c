// Register-only FMA throughput per thread count: how far a machine's cores scale FMA-bound code
// (benchmarks/README.md, "16 cores with the float32 random-feature path"). Not part of the package.
// Build and run: gcc -O2 -pthread benchmarks/fmarate.c -o fmarate && ./fmarate 16 100000000
// (maximum threads, iterations per thread).
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static long iters = 200000000L;
static int wide = 0;
static double sink[256];
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
__attribute__((target("avx2,fma"))) static double run256(void){
  __m256d m=_mm256_set1_pd(0.9999999), c=_mm256_set1_pd(1e-7), a0=_mm256_set1_pd(0),a1=_mm256_set1_pd(1),a2=_mm256_set1_pd(2),a3=_mm256_set1_pd(3),a4=_mm256_set1_pd(4),a5=_mm256_set1_pd(5),a6=_mm256_set1_pd(6),a7=_mm256_set1_pd(7),a8=_mm256_set1_pd(8),a9=_mm256_set1_pd(9),a10=_mm256_set1_pd(10),a11=_mm256_set1_pd(11);
  for(long n=0;n<iters;n++){ a0=_mm256_fmadd_pd(a0,m,c); a1=_mm256_fmadd_pd(a1,m,c); a2=_mm256_fmadd_pd(a2,m,c); a3=_mm256_fmadd_pd(a3,m,c); a4=_mm256_fmadd_pd(a4,m,c); a5=_mm256_fmadd_pd(a5,m,c); a6=_mm256_fmadd_pd(a6,m,c); a7=_mm256_fmadd_pd(a7,m,c); a8=_mm256_fmadd_pd(a8,m,c); a9=_mm256_fmadd_pd(a9,m,c); a10=_mm256_fmadd_pd(a10,m,c); a11=_mm256_fmadd_pd(a11,m,c); __asm__ volatile("" : "+x"(a0)); __asm__ volatile("" : "+x"(a1)); __asm__ volatile("" : "+x"(a2)); __asm__ volatile("" : "+x"(a3)); __asm__ volatile("" : "+x"(a4)); __asm__ volatile("" : "+x"(a5)); __asm__ volatile("" : "+x"(a6)); __asm__ volatile("" : "+x"(a7)); __asm__ volatile("" : "+x"(a8)); __asm__ volatile("" : "+x"(a9)); __asm__ volatile("" : "+x"(a10)); __asm__ volatile("" : "+x"(a11)); }
  return a0[0]+a1[0]+a2[0]+a3[0]+a4[0]+a5[0]+a6[0]+a7[0]+a8[0]+a9[0]+a10[0]+a11[0];}
__attribute__((target("avx512f"))) static double run512(void){
  __m512d m=_mm512_set1_pd(0.9999999), c=_mm512_set1_pd(1e-7), a0=_mm512_set1_pd(0),a1=_mm512_set1_pd(1),a2=_mm512_set1_pd(2),a3=_mm512_set1_pd(3),a4=_mm512_set1_pd(4),a5=_mm512_set1_pd(5),a6=_mm512_set1_pd(6),a7=_mm512_set1_pd(7),a8=_mm512_set1_pd(8),a9=_mm512_set1_pd(9),a10=_mm512_set1_pd(10),a11=_mm512_set1_pd(11);
  for(long n=0;n<iters;n++){ a0=_mm512_fmadd_pd(a0,m,c); a1=_mm512_fmadd_pd(a1,m,c); a2=_mm512_fmadd_pd(a2,m,c); a3=_mm512_fmadd_pd(a3,m,c); a4=_mm512_fmadd_pd(a4,m,c); a5=_mm512_fmadd_pd(a5,m,c); a6=_mm512_fmadd_pd(a6,m,c); a7=_mm512_fmadd_pd(a7,m,c); a8=_mm512_fmadd_pd(a8,m,c); a9=_mm512_fmadd_pd(a9,m,c); a10=_mm512_fmadd_pd(a10,m,c); a11=_mm512_fmadd_pd(a11,m,c); __asm__ volatile("" : "+v"(a0)); __asm__ volatile("" : "+v"(a1)); __asm__ volatile("" : "+v"(a2)); __asm__ volatile("" : "+v"(a3)); __asm__ volatile("" : "+v"(a4)); __asm__ volatile("" : "+v"(a5)); __asm__ volatile("" : "+v"(a6)); __asm__ volatile("" : "+v"(a7)); __asm__ volatile("" : "+v"(a8)); __asm__ volatile("" : "+v"(a9)); __asm__ volatile("" : "+v"(a10)); __asm__ volatile("" : "+v"(a11)); }
  return a0[0]+a1[0]+a2[0]+a3[0]+a4[0]+a5[0]+a6[0]+a7[0]+a8[0]+a9[0]+a10[0]+a11[0];}
static void* body(void* p){ long id=(long)p; sink[id]= wide? run512(): run256(); return 0;}
int main(int argc,char**argv){
  int maxt=argc>1?atoi(argv[1]):16; if(argc>2) iters=atol(argv[2]);
  for(wide=0; wide<2; wide++){
    double base=0;
    for(int t=1;t<=maxt;t*=2){
      pthread_t th[256]; double t0=now();
      for(long i=0;i<t;i++) pthread_create(&th[i],0,body,(void*)i);
      for(int i=0;i<t;i++) pthread_join(th[i],0);
      double dt=now()-t0, gf=2.0*12*(wide?8:4)*(double)iters*t/dt/1e9;
      if(t==1) base=gf;
      printf("%s threads %2d: %7.1f GFLOP/s  %.2fx one thread (%.0f%% of linear)\n", wide?"avx512":"avx2  ", t, gf, gf/base, 100*gf/base/t);
      if(t*2>maxt && t!=maxt) t=maxt/2;
    }
  }
  return 0;
}
