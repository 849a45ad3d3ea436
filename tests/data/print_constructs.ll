source_filename = "constructs.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$inl = comdat any
$shared = comdat largest
$own = comdat any

%struct.S = type { i64, i64, i64 }

@tls = thread_local global i32 0, align 4
@tls_ie = hidden thread_local(initialexec) global i32 1, align 4
@tls_le = internal thread_local(localexec) unnamed_addr global i32 2
@prot = protected global i64 3, section ".mydata", partition "part", align 16
@c = linkonce_odr dso_local global i32 4, comdat($shared), align 4
@own = weak global i32 5, comdat
@as1 = addrspace(1) global i32 6
@ext = external externally_initialized global i32
@dll = dllexport global i32 7
@typed = global i32 8, !type !8
@alias_c = hidden alias i32, ptr @c
@alias_own = weak unnamed_addr alias i8, getelementptr (i8, ptr @own, i64 2)
@alias_tls = internal thread_local(localexec) alias i32, ptr @tls_le
@alias_fn = dso_local alias void (ptr, ptr, ptr, ptr), ptr @byval_sret, partition "part"

define void @byval_sret(ptr noalias sret(%struct.S) align 8 %out, ptr byval(%struct.S) align 8 %in, ptr nocapture readonly dereferenceable(24) %p, ptr inalloca(i32) %q) #0 {
  ret void
}

define linkonce_odr hidden i32 @inl(i32 returned %x) section ".text.inl" comdat align 32 {
  ret i32 %x
}

define i32 @gc_prefix(ptr swifterror %e, ptr swiftself %s, ptr nest %n, ptr preallocated(i32) %pa) gc "shadow-stack" prefix i32 123 prologue i8 144 {
  ret i32 0
}

define i32 @pers() personality ptr @__gxx_personality_v0 !prof !9 {
  ret i32 0
}

define internal fastcc noundef i32 @fast(i32 noundef %x) unnamed_addr #1 {
  %r = call fastcc noundef i32 @fast(i32 noundef %x)
  ret i32 %r
}

define i32 @mt(i32 %x) {
  %r = musttail call i32 @mt(i32 %x)
  ret i32 %r
}

define i32 @attached(ptr %p) {
  %v = load i32, ptr %p, align 4, !tbaa !1, !range !5, !noundef !6
  %r = call i32 @mt(i32 %v) #1, !annotation !7
  ret i32 %r
}

declare i32 @__gxx_personality_v0(...)

declare !annotation !7 void @decl(ptr nocapture noundef writeonly, i64 noundef zeroext) local_unnamed_addr #1

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" "target-cpu"="x86-64" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable }

!1 = !{!2, !2, i64 0}
!2 = !{!"int", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C/C++ TBAA"}
!5 = !{i32 0, i32 10}
!6 = !{}
!7 = !{!"auto-init"}
!8 = !{i64 0, !"typeid"}
!9 = !{!"function_entry_count", i64 100}
