import COpenBLAS
