#pragma once
// The BLACS and ScaLAPACK functions accelera::dist, its tests and its benchmark call (ScaLAPACK's libraries
// ship no header for them).
extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);
int Cblacs_pnum(int context, int prow, int pcol);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void pdgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
             const int*, const int*, const double*, const int*, const int*, const int*, const double*, double*,
             const int*, const int*, const int*);
void psgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
             const int*, const int*, const float*, const int*, const int*, const int*, const float*, float*, const int*,
             const int*, const int*);
}
