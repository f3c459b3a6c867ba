#!/bin/bash
# Developer check (not run by CI): compiles Deeplearning4j's ComputationGraph example programs (those
# that need no external data download to build) against ndrt's drop-in jars, the same way
# compile_quickstarts.sh compiles the quickstarts (that script does the work), and prints per file
# OK or FAILED with the first error.
#
# Usage: compile_graph_examples.sh EXAMPLES [BUILD_DIR]   (arguments as compile_quickstarts.sh's)
here=$(cd "$(dirname "$0")" && pwd)
m=advanced/modelling
export EXAMPLE_DIRS="utils quickstart/features/modelsavingloading $m/charmodelling/generatetext \
  $m/charmodelling/utils $m/captcharecognition $m/alphagozero $m/seq2seq"
export EXAMPLE_FILES="quickstart/features/modelsavingloading/SaveLoadComputationGraph.java \
  $m/charmodelling/generatetext/GenerateTxtCharCompGraphModel.java \
  $m/captcharecognition/MultiDigitNumberRecognition.java \
  $m/alphagozero/dualresidual/DualResnetModel.java \
  $m/alphagozero/dualresidual/DL4JAlphaGoZeroBuilder.java \
  $m/alphagozero/AlphaGoZeroTrainer.java \
  $m/seq2seq/AdditionModelWithSeq2Seq.java \
  $m/seq2seq/Seq2SeqPredicter.java"
exec "$here/compile_quickstarts.sh" "$@"
