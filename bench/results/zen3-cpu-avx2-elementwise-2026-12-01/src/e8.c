#include <immintrin.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <stdint.h>
static inline __m256 exp8s(__m256 x, __m256 c, int deg)
{
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), c);
    t = _mm256_min_ps(_mm256_set1_ps(128.0f), _mm256_max_ps(_mm256_set1_ps(-127.0f), t));
    const __m256 big = _mm256_set1_ps(12583039.0f);   /* 1.5 2^23 + 127 */
    const __m256 s = _mm256_add_ps(t, big);
    const __m256 f = _mm256_sub_ps(t, _mm256_sub_ps(s, big));
    __m256 p;
    if (deg == 5) {
    p = _mm256_set1_ps(0.001326472731307149f);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.009671512991189957f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.05550733581185341f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.24022242426872253f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.6931470036506653f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
    } else {
    p = _mm256_set1_ps(1.5345800784e-4f);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3399930904e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6184890717e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5503286421e-2f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022646248e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718246e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
    }
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(s), 23)));
}
int main(void){
  for (int deg=5; deg<=6; deg++){
  double worst=0, worstx=0; long bad=0;
  /* all floats x in [-110, 90] with m = 0 */
  for (uint32_t sgn=0; sgn<2; sgn++) for (uint32_t b=0; b<0x7f800000u; b+=1){
    uint32_t u=b|(sgn<<31); float x; memcpy(&x,&u,4);
    if (x < -110.f || x > 90.f) continue;
    if ((b & 7) && fabsf(x) > 1e-3f) continue;   /* every 8th float away from 0 */
    __m256 r = exp8s(_mm256_set1_ps(x), _mm256_setzero_ps(), deg);
    float got = _mm256_cvtss_f32(r); double e = exp((double)x);
    if (x > 88.3f) { if (!(isinf(got) || fabs(got-e)<=1e-6*e)) bad++; continue; }
    double tol = 1e-38 + (2.5e-7 + 1e-7*fabs(x))*e;
    double err = fabs(got - e);
    if (err > tol) { if (bad++ < 5) printf("deg %d x %.9g got %.9g want %.9g\n",deg,x,got,e); }
    if (e > 1e-37) { double rel = err/e - 1e-7*fabs(x); if (rel>worst){worst=rel;worstx=x;} }
  }
  printf("deg %d: bad %ld worst rel (beyond 1e-7|x|) %.3g at %.9g\n",deg,bad,worst,worstx);
  float sp[]={-INFINITY, INFINITY, NAN, 0.f, -0.f, -87.3f, -88.f, -150.f};
  for (int i=0;i<8;i++){ __m256 r=exp8s(_mm256_set1_ps(sp[i]),_mm256_setzero_ps(),deg); printf(" exp(%g)=%g",sp[i],_mm256_cvtss_f32(r)); }
  printf("\n");}
}
