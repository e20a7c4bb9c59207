/*
 * bk_formats.h
 *	  Part of the core's public interface (bk_core.h includes it): a model
 *	  to and from other formats (src/core/format/bk_export*.c,
 *	  bk_import_libsvm.c; doc/export.md), and the bias an imported
 *	  classifier carries.
 */
#ifndef BK_FORMATS_H
#define BK_FORMATS_H

/*
 * The model in another format: "onnx" (an ONNX ModelProto that scores raw
 * rows as the model does) or "libsvm" (LIBSVM's model text).  Returns the
 * bytes (*len of them) allocated through the model's env; a model the
 * format cannot express faithfully is refused (BK_ERR_UNSUPPORTED) with
 * what it cannot express named, an unknown format is BK_ERR_PARAM.
 */
extern uint8_t *BkModelExport(BkModel *m, const char *format, size_t *len);

/*
 * A model from another format's bytes: "libsvm" (a model file of
 * svm-train: a binary C-SVC, an epsilon-SVR or a one-class model).  dim
 * is the model's number of features, or 0 for the largest index of its
 * support vectors.  Malformed bytes are BK_ERR_DATA, a model the core
 * cannot hold BK_ERR_UNSUPPORTED, one too large for its input BK_ERR_LIMIT.
 * The model is decoded for training (it can be encoded, merged, continued).
 */
extern BkModel *BkModelImport(const BkEnv *env, const char *format,
							  const uint8_t *data, size_t len, int dim);

/*
 * A classifier's bias (bk_part_bias.c), what class c's score adds: an
 * imported LIBSVM classifier's -rho.  False for a model without one.
 */
extern bool BkModelBias(const BkModel *m, int c, double *bias);

#endif							/* BK_FORMATS_H */
