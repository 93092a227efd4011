// A CPU-bound workload with distinctive method names for the perfcollect-c .NET tests.
//
//   pc-dotnet-app SECONDS         spin for SECONDS (fractions allowed), then exit
//   pc-dotnet-app reuse SECONDS   JIT, run and free a new method again and again (see
//                                 CodeReuse), so code addresses get reused; then exit
//   pc-dotnet-app events GO DONE  wait for file GO, then collect garbage, throw and catch
//                                 exceptions of two types and contend on a lock (see
//                                 RuntimeEvents), print its own counts of each, wait for
//                                 file DONE (or exit at once when DONE is "-")
//   pc-dotnet-app bench GO ROUNDS wait for file GO, then two threads run ROUNDS rounds of
//                                 mixed work each (see Bench); print "elapsed_ms N cpu_ms N"
//   pc-dotnet-app storm GO SECONDS wait for file GO, then throw and catch exceptions as fast
//                                 as it can for SECONDS; print "thrown N"
//   pc-dotnet-app perfview GO SECONDS [STOP]  wait for file GO, then do what each of
//                                 view's .NET views must find (see Profiled): allocate
//                                 Widgets, throw AppErrorC, contend on a lock, spin in
//                                 Profiled.Hot; print its own counts; then exit (once file
//                                 STOP exists, if given: a collection reads the JIT maps
//                                 through the live process when it stops)
//   pc-dotnet-app pool SECONDS    the main thread and two thread-pool work items at a time run
//                                 the hot loop for SECONDS (see Pool): stacks whose start is
//                                 Main or the pool's dispatch, through the runtime's native
//                                 code and libc (allocation, GC, copies)
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
using System.IO;
using System.Linq;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

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

	public class AppErrorA : Exception
	{
		public AppErrorA(int i) : base("A" + i) { }
	}

	public class AppErrorB : Exception
	{
		public AppErrorB(int i) : base("B" + i) { }
	}

	// What the runtime's own events must show: GCs of each generation, exceptions of two
	// types, lock contention.  The counts printed are the app's own view (GC.CollectionCount,
	// its catch blocks, Monitor.LockContentionCount), taken around the work, so a collector
	// that attached before GO must report the same.
	public static class RuntimeEvents
	{
		static readonly object Gate = new object();
		static long sink;

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void Allocate(int rounds)
		{
			for (int r = 0; r < rounds; r++) {
				var keep = new List<byte[]>();
				for (int i = 0; i < 2000; i++)
					keep.Add(new byte[1024 + (i & 255)]);
				sink += keep.Count;
			}
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void ThrowA(int i)
		{
			throw new AppErrorA(i);
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void ThrowB(int i)
		{
			throw new AppErrorB(i);
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void HoldLock()
		{
			lock (Gate) {
				var sw = Stopwatch.StartNew();
				while (sw.Elapsed.TotalMilliseconds < 2)
					sink++;
			}
		}

		static void Contend(int threads, int rounds)
		{
			var all = new Thread[threads];
			for (int t = 0; t < threads; t++) {
				all[t] = new Thread(() => {
					for (int r = 0; r < rounds; r++)
						HoldLock();
				});
				all[t].Start();
			}
			foreach (var t in all)
				t.Join();
		}

		public static int Run(string go, string done)
		{
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			var wait = Stopwatch.StartNew();
			while (!File.Exists(go)) {
				if (wait.Elapsed.TotalSeconds > 120) {
					Console.Error.WriteLine("no " + go + " within 120 s");
					return 1;
				}
				Thread.Sleep(10);
			}
			int[] gc0 = { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };
			long contention0 = Monitor.LockContentionCount;

			Allocate(200);		    // gen0 GCs of its own
			for (int i = 0; i < 5; i++)
				GC.Collect(0);
			for (int i = 0; i < 3; i++)
				GC.Collect(1);
			for (int i = 0; i < 2; i++)
				GC.Collect(2, GCCollectionMode.Forced, true);
			int a = 0, b = 0;
			for (int i = 0; i < 60; i++) {
				try {
					if (i % 3 == 2)
						ThrowB(i);
					else
						ThrowA(i);
				} catch (AppErrorA) {
					a++;
				} catch (AppErrorB) {
					b++;
				}
			}
			Contend(4, 40);

			int[] gc = { GC.CollectionCount(0) - gc0[0], GC.CollectionCount(1) - gc0[1],
				     GC.CollectionCount(2) - gc0[2] };
			// CollectionCount(g) counts every GC of generation g or higher.
			Console.WriteLine("gc gen0 " + (gc[0] - gc[1]) + " gen1 " + (gc[1] - gc[2]) +
					  " gen2 " + gc[2]);
			Console.WriteLine("exceptions PcDotnetApp.AppErrorA " + a +
					  " PcDotnetApp.AppErrorB " + b);
			Console.WriteLine("contention " + (Monitor.LockContentionCount - contention0));
			Console.WriteLine("counted " + (sink & 1));
			Console.Out.Flush();
			while (done != "-" && !File.Exists(done))
				Thread.Sleep(10);
			return 0;
		}
	}

	// Fixed work for the overhead benchmark (bench/dotnet_events_overhead.sh): what a
	// typical service does between requests: allocation (so GCs), string and LINQ work, an
	// exception now and then, a shared lock.
	public static class Bench
	{
		static readonly object Gate = new object();
		static long shared;

		static void WaitFor(string go)
		{
			while (!File.Exists(go))
				Thread.Sleep(10);
		}

		static void Worker(int rounds)
		{
			for (int r = 0; r < rounds; r++) {
				long v = HotLoop.Churn(r) + HotLoop.Digits(r);
				if (r % 100 == 0) {
					try {
						throw new AppErrorA(r);
					} catch (AppErrorA) {
						v++;
					}
				}
				if (r % 10 == 0)
					lock (Gate)
						shared += v;
			}
		}

		public static int Run(string go, int rounds)
		{
			Worker(200); // JIT before the clock starts
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			WaitFor(go);
			var me = Process.GetCurrentProcess();
			var cpu0 = me.TotalProcessorTime;
			var sw = Stopwatch.StartNew();
			var t = new Thread(() => Worker(rounds));
			t.Start();
			Worker(rounds);
			t.Join();
			double elapsed = sw.Elapsed.TotalMilliseconds;
			me.Refresh();
			// CPU time of the whole process (the runtime's threads included) during the work.
			double cpu = (me.TotalProcessorTime - cpu0).TotalMilliseconds;
			Console.WriteLine("elapsed_ms " + elapsed.ToString("F1", CultureInfo.InvariantCulture) +
					  " cpu_ms " + cpu.ToString("F1", CultureInfo.InvariantCulture));
			return 0;
		}

		public static int Storm(string go, double seconds)
		{
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			WaitFor(go);
			long n = 0;
			var sw = Stopwatch.StartNew();
			while (sw.Elapsed.TotalSeconds < seconds) {
				try {
					throw new AppErrorB((int)n);
				} catch (AppErrorB) {
					n++;
				}
			}
			Console.WriteLine("thrown " + n);
			return 0;
		}
	}

	// An object of a type no other code allocates, so its share of the allocations is known.
	public sealed class Widget
	{
		public long A, B, C, D, E, F;
		public Widget Next;
	}

	public class AppErrorC : Exception
	{
		public AppErrorC(int i) : base("C" + i) { }
	}

	public sealed class Ledger
	{
		public long Total;
	}

	// The workload of view's PerfView views (tests/integration/view_perfview.sh): each phase
	// has a method of its own, so each view has a known leader:
	//   alloc: Widget, from AllocateWidgets (~200 MB, far more than anything else allocates);
	//   exception: AppErrorC, thrown Throws times from ThrowC;
	//   contention: 4 threads waiting in HoldLedger for the one Ledger lock;
	//   cpu: Hot, a loop of arithmetic, for SECONDS.
	public static class Profiled
	{
		public const int Throws = 37;
		static readonly Ledger Book = new Ledger();
		static Widget keep;

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long AllocateWidgets(int n)
		{
			long sum = 0;
			for (int i = 0; i < n; i++) {
				var w = new Widget { A = i, Next = (i & 1023) == 0 ? keep : null };
				if ((i & 1023) == 0)
					keep = w;
				sum += w.A;
			}
			return sum;
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void ThrowC(int i)
		{
			throw new AppErrorC(i);
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void HoldLedger()
		{
			lock (Book) {
				var sw = Stopwatch.StartNew();
				while (sw.Elapsed.TotalMilliseconds < 3)
					Book.Total++;
			}
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static long Hot(double seconds)
		{
			long acc = 1;
			var sw = Stopwatch.StartNew();
			while (sw.Elapsed.TotalSeconds < seconds)
				for (int i = 0; i < 100000; i++)
					acc = acc * 6364136223846793005L + i ^ (acc >> 17);
			return acc;
		}

		public static int Run(string go, double seconds, string stop)
		{
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			while (!File.Exists(go))
				Thread.Sleep(10);
			long contention0 = Monitor.LockContentionCount;
			long sum = AllocateWidgets(3000000);
			int thrown = 0;
			for (int i = 0; i < Throws; i++) {
				try {
					ThrowC(i);
				} catch (AppErrorC) {
					thrown++;
				}
			}
			var all = new Thread[4];
			for (int t = 0; t < all.Length; t++) {
				all[t] = new Thread(() => {
					for (int r = 0; r < 25; r++)
						HoldLedger();
				});
				all[t].Start();
			}
			foreach (var t in all)
				t.Join();
			sum += Hot(seconds);
			Console.WriteLine("thrown PcDotnetApp.AppErrorC " + thrown);
			Console.WriteLine("contention " + (Monitor.LockContentionCount - contention0));
			Console.WriteLine("done " + (sum & 1));
			Console.Out.Flush();
			// Bounded: a test that dies leaves no app behind for long.
			for (int i = 0; stop != null && !File.Exists(stop) && i < 12000; i++)
				Thread.Sleep(10);
			return 0;
		}
	}

	// Work on the thread pool (Task.Run: PortableThreadPool's workers run it from
	// ThreadPoolWorkQueue.Dispatch) beside the main thread's, round after round.
	public static class Pool
	{
		// Optimized at once: a Tier0 loop this long would be replaced on the stack (OSR), and
		// an OSR frame's caller is no frame a stack walk finds (the runtime's own unwinder
		// knows it), which would hide Main from the test's count whatever the unwinder.
		[MethodImpl(MethodImplOptions.AggressiveOptimization)]
		public static int Run(double seconds)
		{
			long acc = HotLoop.Spin(0.2);
			Console.WriteLine("ready " + Environment.ProcessId);
			Console.Out.Flush();
			var sw = Stopwatch.StartNew();
			for (int round = 0; sw.Elapsed.TotalSeconds < seconds; round++) {
				int r = round;
				var work = new[] {
					Task.Run(() => HotLoop.Churn(r) + HotLoop.Digits(r)),
					Task.Run(() => (long)HotLoop.Digits(r + 1)),
				};
				acc += HotLoop.Digits(r) + HotLoop.Churn(r);
				Task.WaitAll(work);
				acc += work[0].Result + work[1].Result;
			}
			Console.WriteLine("done " + (acc & 0xff));
			return 0;
		}
	}

	public static class Program
	{
		public static int Main(string[] args)
		{
			if (args.Length > 0 && args[0] == "events") {
				if (args.Length != 3) {
					Console.Error.WriteLine("usage: pc-dotnet-app events GO_FILE DONE_FILE|-");
					return 2;
				}
				return RuntimeEvents.Run(args[1], args[2]);
			}
			if (args.Length == 3 && args[0] == "bench")
				return Bench.Run(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
			if ((args.Length == 3 || args.Length == 4) && args[0] == "perfview")
				return Profiled.Run(args[1], double.Parse(args[2], CultureInfo.InvariantCulture),
						    args.Length == 4 ? args[3] : null);
			if (args.Length == 3 && args[0] == "storm")
				return Bench.Storm(args[1], double.Parse(args[2], CultureInfo.InvariantCulture));
			if (args.Length == 2 && args[0] == "pool")
				return Pool.Run(double.Parse(args[1], CultureInfo.InvariantCulture));
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
