int __llvm_profile_runtime = 0;
