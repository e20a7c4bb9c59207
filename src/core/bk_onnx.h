/*
 * bk_onnx.h
 *	  The messages of an ONNX model (format/bk_onnx.c), written with the
 *	  wire-format writer of bk_protobuf.h: a graph is built node by node
 *	  (in an order where each node's inputs come first), its constant
 *	  tensors (initializers), inputs and outputs, then wrapped in a
 *	  ModelProto of IR version 8 importing ai.onnx 17 and ai.onnx.ml 3.
 *	  The field numbers are those of ONNX's onnx.proto (ModelProto,
 *	  GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto,
 *	  TypeProto, TensorShapeProto, OperatorSetIdProto).
 */
#ifndef BK_ONNX_H
#define BK_ONNX_H

#include "bk_protobuf.h"

/* TensorProto.DataType */
#define BK_ONNX_FLOAT	1
#define BK_ONNX_INT64	7
#define BK_ONNX_STRING	8
#define BK_ONNX_BOOL	9
#define BK_ONNX_DOUBLE	11

/* the opsets the graph uses */
#define BK_ONNX_IR_VERSION 8
#define BK_ONNX_OPSET 17
#define BK_ONNX_ML_OPSET 3
#define BK_ONNX_ML "ai.onnx.ml"

/* a name of the graph's own values: "_bk_" then a number */
#define BK_ONNX_NAME_LEN 32
typedef char BkOnnxName[BK_ONNX_NAME_LEN];

typedef struct BkOnnx
{
	const BkEnv *env;
	BkPb		graph;			/* GraphProto's fields, in any order */
	int			next;			/* the next name's number */
} BkOnnx;

extern void BkOnnxInit(BkOnnx *g, const BkEnv *env);
extern void BkOnnxFree(BkOnnx *g);
/* a fresh name for a value of the graph */
extern void BkOnnxTemp(BkOnnx *g, BkOnnxName name);

/*
 * An input or output of the graph: a tensor of elem type, shape [N, cols]
 * (N the batch, symbolic), or [N] for cols < 0
 */
extern void BkOnnxInput(BkOnnx *g, const char *name, int elem, int64_t cols);
extern void BkOnnxOutput(BkOnnx *g, const char *name, int elem, int64_t cols);

/* constant tensors of ndims dims (values in row-major order) */
extern void BkOnnxDoubles(BkOnnx *g, const char *name, const int64_t *dims,
						  int ndims, const double *v);
extern void BkOnnxInt64s(BkOnnx *g, const char *name, const int64_t *dims,
						 int ndims, const int64_t *v);
/* a vector of n strings (byte strings of len[i] bytes) */
extern void BkOnnxStrings(BkOnnx *g, const char *name, int64_t n,
						  const char *const *s, const size_t *len);

/* attributes, appended to a BkPb that a node then takes */
extern void BkOnnxAttrInt(BkPb *attrs, const char *name, int64_t v);
extern void BkOnnxAttrInts(BkPb *attrs, const char *name, int n, const int64_t *v);
extern void BkOnnxAttrStrings(BkPb *attrs, const char *name, int n,
							  const char *const *s, const size_t *len);

/*
 * A node of op (in domain, "" for ai.onnx) with attrs (NULL or a BkPb of
 * attributes, freed) whose one output is out; its inputs follow, NULL
 * terminated (at most 4)
 */
extern void BkOnnxNode(BkOnnx *g, const char *op, const char *domain,
					   BkPb *attrs, const char *out,...);

/* the same with its inputs in an array (Concat's list) */
extern void BkOnnxNodeList(BkOnnx *g, const char *op, const char *domain,
						   BkPb *attrs, const char *out, int n_in,
						   const char *const *in);

/* the ModelProto of the graph (freed), allocated through g's env */
extern uint8_t *BkOnnxFinish(BkOnnx *g, const char *doc, size_t *len);

#endif							/* BK_ONNX_H */
