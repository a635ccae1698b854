#pragma once
int vecops_scale(float *dev, float s, int n);
int vecops_saxpy(float *y, const float *x, float a, int n);
