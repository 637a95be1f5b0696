void moments(const float *x, int n, double *mean, double *var);
