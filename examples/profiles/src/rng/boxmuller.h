void boxmuller(float *u, int n, int reference);
