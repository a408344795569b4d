"""Python transcriptions of the AscendC operators in kernels_cpp/, run on ascsim."""
