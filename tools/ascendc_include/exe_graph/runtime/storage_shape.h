/**
 * ascsim: gert::StorageShape is declared in exe_graph/runtime/shape.h; this conventional CANN
 * header name brings it in, for the C++ syntax check only.
 */
#ifndef ASCSIM_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H
#define ASCSIM_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H

#include "exe_graph/runtime/shape.h"

#endif  // ASCSIM_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H
