package sbf;

/** The blocked kind's rate bound (docs/format4.md, section 4, Sizing) and small numerics. */
final class Rates {
    private Rates() {
    }

    static double ipow(double x, int k) {
        double r = 1.0;
        while (k != 0) {
            if ((k & 1) != 0)
                r *= x;
            x *= x;
            k >>>= 1;
        }
        return r;
    }

    /** ln Gamma(z) for z >= 1 (Stirling's series after shifting z to 10 or more). */
    static double lgamma(double z) {
        double shift = 0.0;
        while (z < 10.0) {
            shift += Math.log(z);
            z += 1.0;
        }
        double z2 = 1.0 / (z * z);
        double series = (1.0 / 12 - z2 * (1.0 / 360 - z2 * (1.0 / 1260 - z2 * (1.0 / 1680 - z2 / 1188)))) / z;
        return (z - 0.5) * Math.log(z) - z + 0.5 * Math.log(2 * Math.PI) + series - shift;
    }

    /** P(D = d), d = 0..k: distinct bits among k probes drawn from a line's 512. */
    private static double[] distinctDist(int k) {
        double[] dist = new double[k + 2];
        dist[0] = 1.0;
        for (int j = 0; j < k; j++)
            for (int d = j + 1; d-- > 0;) {
                double stay = dist[d] * (double) d / 512;
                double move = dist[d] - stay;
                dist[d] = stay;
                dist[d + 1] += move;
            }
        return dist;
    }

    /**
     * The blocked rate bound with lambda elements a line and k probes, stopping once the sum
     * passes limit (sbf_kind_blocked.c's blocked_fpr_upto, the same terms in the same order).
     */
    static double blockedFprUpto(double lambda, int k, double limit) {
        if (!(lambda > 0.0))
            return 0.0;
        if (!(lambda <= 600.0) || k < 1 || k > 32)
            return 1.0;
        double[] dist = distinctDist(k);
        double lq = Math.log1p(-1.0 / 512);
        double qk = Math.exp(lq * k);
        double i0 = 0.0;
        if (lambda > 150.0)
            i0 = Math.floor(lambda - 12.0 * Math.sqrt(lambda));
        double p = Math.exp(-lambda + i0 * Math.log(lambda) - lgamma(i0 + 1.0));
        double qik = Math.exp(lq * k * i0);
        double sum = 0.0;
        for (int i = (int) i0; i < 4096; i++) {
            double pi = 1.0 - qik;
            double term = 0.0;
            for (int d = k; d >= 1; d--)
                term = (term + dist[d]) * pi;
            if (i == (int) i0 && i0 > 0.0)
                sum += Math.exp(-(lambda - i0) * (lambda - i0) / (2.0 * lambda)) * term;
            sum += p * term;
            if (sum > limit)
                return sum;
            p *= lambda / (double) (i + 1);
            qik *= qk;
            if ((double) (i + 2) > lambda * 1.05 + 10.0) {
                double ratio = lambda / (double) (i + 2);
                double tail = p / (1.0 - ratio);
                if (tail <= sum * 1e-15)
                    return sum + tail;
            }
        }
        return sum;
    }

    static double blockedFpr(double lambda, int k) {
        return blockedFprUpto(lambda, k, 2.0);
    }
}
