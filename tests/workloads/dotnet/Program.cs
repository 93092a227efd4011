// A CPU-bound workload with distinctive method names for the perfcollect-c .NET tests.
//
//   pc-dotnet-app SECONDS         spin for SECONDS (fractions allowed), then exit
//   pc-dotnet-app reuse SECONDS   JIT, run and free a new method again and again (see
//                                 CodeReuse), so code addresses get reused; then exit
//
// It prints "ready <pid>" once its hot methods have been JIT-compiled and run, so a test
// can wait for that line instead of sleeping.  The hot path is the app's own code
// (HotLoop.Churn / HotLoop.Digits) calling into framework code: LINQ (System.Linq.dll) and
// string formatting and hashing (System.Private.CoreLib.dll).  Hot framework methods get
// re-JIT-compiled by tiered compilation, so to keep ReadyToRun code on every stack the main
// loop runs inside one call of String.Join (precompiled in CoreLib): a method called once
// is never re-JIT-compiled, and it calls back into the app's iterator for each round.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Text;

namespace PcDotnetApp
{
	public static class HotLoop
	{
		// NoInlining keeps each method a frame of its own in the samples.
		[MethodImpl(MethodImplOptions.NoInlining)]
		public static long Churn(int round)
		{
			// LINQ over a range: Enumerable.Range/Where/Select/Sum run from R2R code.
			return Enumerable.Range(round, 2000)
				.Where(i => (i & 3) != 0)
				.Select(i => (long)i * i)
				.Sum();
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		public static int Digits(int round)
		{
			// String work in CoreLib: formatting, concatenation, searching, hashing.
			var sb = new StringBuilder();
			for (int i = 0; i < 200; i++)
				sb.Append((round + i).ToString(CultureInfo.InvariantCulture)).Append(',');
			string s = sb.ToString().ToUpperInvariant();
			return s.IndexOf("99", StringComparison.Ordinal) + s.GetHashCode() % 7;
		}

		// One round per item, for SECONDS; String.Join drives it from ReadyToRun code.
		public static IEnumerable<string> Rounds(double seconds)
		{
			var sw = Stopwatch.StartNew();
			for (int round = 0; sw.Elapsed.TotalSeconds < seconds; round++)
				yield return (Churn(round) + Digits(round) & 1) == 0 ? "" : "1";
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		public static long Spin(double seconds)
		{
			long acc = 0;
			var sw = Stopwatch.StartNew();
			for (int round = 0; sw.Elapsed.TotalSeconds < seconds; round++)
				acc += Churn(round) + Digits(round);
			return acc;
		}
	}

	// Code at reused addresses, as tiered compilation makes it: each generation emits a new
	// DynamicMethod named Gen<N>_Spin (a CPU-bound loop of ~40 ms), runs it, drops it and
	// lets the GC free its code, so the next generation's code tends to land where the last
	// one was.  Samples at one address then belong to different methods at different times.
	public static class CodeReuse
	{
		[MethodImpl(MethodImplOptions.NoInlining)]
		static long RunGeneration(int gen, long iterations)
		{
			var dm = new DynamicMethod("Gen" + gen + "_Spin", typeof(long),
						   new[] { typeof(long) }, typeof(CodeReuse).Module);
			ILGenerator il = dm.GetILGenerator();
			il.DeclareLocal(typeof(long)); // acc
			il.DeclareLocal(typeof(long)); // i
			Label loop = il.DefineLabel(), cond = il.DefineLabel();
			il.Emit(OpCodes.Ldc_I8, (long)gen);
			il.Emit(OpCodes.Stloc_0);
			il.Emit(OpCodes.Ldc_I8, 0L);
			il.Emit(OpCodes.Stloc_1);
			il.Emit(OpCodes.Br, cond);
			il.MarkLabel(loop); // acc = (acc * K + i) ^ (acc >> 13); i++
			il.Emit(OpCodes.Ldloc_0);
			il.Emit(OpCodes.Ldc_I8, 6364136223846793005L);
			il.Emit(OpCodes.Mul);
			il.Emit(OpCodes.Ldloc_1);
			il.Emit(OpCodes.Add);
			il.Emit(OpCodes.Ldloc_0);
			il.Emit(OpCodes.Ldc_I4, 13);
			il.Emit(OpCodes.Shr);
			il.Emit(OpCodes.Xor);
			il.Emit(OpCodes.Stloc_0);
			il.Emit(OpCodes.Ldloc_1);
			il.Emit(OpCodes.Ldc_I8, 1L);
			il.Emit(OpCodes.Add);
			il.Emit(OpCodes.Stloc_1);
			il.MarkLabel(cond);
			il.Emit(OpCodes.Ldloc_1);
			il.Emit(OpCodes.Ldarg_0);
			il.Emit(OpCodes.Blt, loop);
			il.Emit(OpCodes.Ldloc_0);
			il.Emit(OpCodes.Ret);
			var spin = (Func<long, long>)dm.CreateDelegate(typeof(Func<long, long>));
			return spin(iterations);
		}

		// Frees the last generation's code: the delegate and method are unreachable once
		// RunGeneration returned; finalizers release the code, a second GC the rest.
		static void FreeCode()
		{
			GC.Collect();
			GC.WaitForPendingFinalizers();
			GC.Collect();
		}

		public static int Run(double seconds)
		{
			// Calibrate on the second generation (the first one also JIT-compiles the
			// emitting code): iterations for ~40 ms of spinning per generation.
			long acc = RunGeneration(0, 1000000);
			FreeCode();
			var sw = Stopwatch.StartNew();
			acc += RunGeneration(1, 4000000);
			double ms = Math.Max(0.1, sw.Elapsed.TotalMilliseconds);
			long iterations = Math.Max(1000000, (long)(4000000 * 40 / ms));
			FreeCode();
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			sw.Restart();
			int gen = 2;
			for (; sw.Elapsed.TotalSeconds < seconds; gen++) {
				acc += RunGeneration(gen, iterations);
				FreeCode();
			}
			Console.WriteLine("done " + gen + " generations " + (acc & 0xff));
			return 0;
		}
	}

	public static class Program
	{
		public static int Main(string[] args)
		{
			double seconds = 5;
			bool reuse = args.Length > 0 && args[0] == "reuse";
			if (reuse)
				args = args.Skip(1).ToArray();
			if (args.Length > 0 && !double.TryParse(args[0], NumberStyles.Float,
								CultureInfo.InvariantCulture, out seconds)) {
				Console.Error.WriteLine("usage: pc-dotnet-app [reuse] SECONDS");
				return 2;
			}
			if (reuse)
				return CodeReuse.Run(seconds);
			// Warm up so the methods exist (JIT-compiled) before "ready".
			long acc = HotLoop.Spin(0.2);
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			acc += string.Join(",", HotLoop.Rounds(seconds)).Length;
			Console.WriteLine("done " + (acc & 0xff));
			return 0;
		}
	}
}
