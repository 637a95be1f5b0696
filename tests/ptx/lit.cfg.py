# lit configuration for the PTX library and pass tests (see doc/STYLE.md, "Tests")
import os, shutil
import lit.formats

config.name = 'mpcc-ptx'
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = ['.ptx', '.test']
config.excludes = ['Inputs']
config.test_source_root = os.path.dirname(__file__)

build = os.environ.get('MPCC_BUILD', os.path.join(config.test_source_root, '../../build'))
llvm = os.environ.get('LLVM_BIN', '/usr/lib/llvm-14/bin')
config.test_exec_root = os.path.join(build, 'tests', 'ptx')
config.environment['PATH'] = os.pathsep.join([build, llvm, os.environ.get('PATH', '')])
# every mpcc-opt run of a test verifies its input and the output of each pass,
# and its notes carry each kernel's statistics (-v), which tests check
config.substitutions.append(('%mpcc-opt', os.path.join(build, 'mpcc-opt') + ' --verify -v'))
# the PTX without its // comments, so that a CHECK cannot match the test's
# own comment lines (the printer keeps comments)
config.substitutions.append(('%nocomments', "sed -e 's|//.*||'"))
config.substitutions.append(('%inputs', os.path.join(config.test_source_root, 'Inputs')))

ptxas = shutil.which('ptxas') or (os.path.exists('/usr/local/cuda/bin/ptxas') and '/usr/local/cuda/bin/ptxas')
if ptxas:
    config.available_features.add('ptxas')
    config.substitutions.append(('%ptxas', ptxas))
nvcc = shutil.which('nvcc') or (os.path.exists('/usr/local/cuda/bin/nvcc') and '/usr/local/cuda/bin/nvcc')
if nvcc:
    config.available_features.add('nvcc')
    config.environment['PATH'] = os.pathsep.join([config.environment['PATH'], os.path.dirname(nvcc)])
