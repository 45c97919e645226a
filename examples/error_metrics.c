/*
 * error_metrics.c - the metrics of `gtool error` between an array and a
 * lossy copy of it (here: the values rounded to bfloat16 precision).
 *
 * Build by hand against an installed libgtool:
 *	cc error_metrics.c -o error_metrics $(pkg-config --cflags --libs gtool)
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <gtool.h>

#define N 4096

int main(void)
{
	static float a[N], b[N];
	struct gtool_metrics m;
	struct gtool_errbuf err;
	int rc;

	for (size_t i = 0; i < N; i++) {
		uint32_t u;

		const float x = (float)((int)(i % 400) - 200) / 200.0f;

		a[i] = x * (1.0f - x * x / 6.0f) * 1e-2f; /* about sin(x) */
		memcpy(&u, &a[i], 4);
		u &= 0xffff0000u; /* keep bfloat16's 7 mantissa bits */
		memcpy(&b[i], &u, 4);
	}
	rc = gtool_error_metrics(a, GTOOL_F32, b, GTOOL_F32, N, &m, &err);
	if (rc < 0) {
		fprintf(stderr, "error_metrics: %s\n", err.msg);
		return 1;
	}
	printf("values %llu identical %llu\n", (unsigned long long)m.values,
	       (unsigned long long)m.identical);
	printf("max_abs %.6g max_rel %.6g range %.6g\n", m.max_abs, m.max_rel, m.range);
	printf("rmse %.6g nrmse %.6g psnr %.3f dB snr %.3f dB\n", m.rmse, m.nrmse, m.psnr, m.snr);
	printf("cosine %.9f pearson %.9f gain %.9f\n", m.cosine, m.pearson, m.gain);
	/* truncating to 8 significant bits: relative error below 2^-7 */
	return m.max_rel < 1.0 / 128 && m.psnr > 40 ? 0 : 1;
}
