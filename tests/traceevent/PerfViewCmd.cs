// perfview: what PerfView's .NET views show of a NetTrace file, for view's checks
// (tests/integration/view_perfview.sh).  The file goes through TraceLog, as PerfView opens it
// (TraceLog.CreateFromEventPipeDataFile), and the stacks are the ones TraceLog attaches to
// each event; GC figures come from TraceEvent's analysis (TraceLoadedDotNetRuntime, what
// PerfView's GCStats page shows).
//
// Prints (frames root first, each "module!method" as TraceLog's stack source names it:
// "module!?" or "?!?" where it knows no name; TraceLog's Process and Thread pseudo-frames,
// and the BROKEN it puts above a stack that does not reach a thread's start, left out):
//   sample_stack TYPE N ROOT;...;LEAF  SampleProfiler ThreadSample events per sample type
//                                      (Managed: running managed code; External: outside it,
//                                      in native code or blocked) and stack
//   alloc_type BYTES N TYPE            AllocationTick: bytes (AllocationAmount64) and ticks per type
//   alloc_stack BYTES ROOT;...;LEAF;TYPE   the same per stack, the type as the leaf
//   exception_type N TYPE              ExceptionThrown events per exception type
//   exception_stack N ROOT;...;LEAF;TYPE
//   contention N NS                    ContentionStart events, and the ns of the Stop events
//                                      that carry a duration (.NET 8+: DurationNs)
//   gc_total PID N PAUSE_MS            TraceLoadedDotNetRuntime: complete GCs and their pause
//   gc_gen PID GEN N PAUSE_MS          ... per generation
//   gc_row PID NUMBER GEN PAUSE_MS REASON TYPE   every complete GC
//   gc_stats PID NUMBER PAUSE_PCT GEN0_ALLOC_MB GEN0_RATE_MB_S PEAK_MB AFTER_MB PROMOTED_MB
//            FINALIZE_SURV_MB PINNED_OBJ PER_HEAP_HISTORIES FRAG0 FRAG1 FRAG2 FRAG3
//                                      GCStats' columns of it (MB: 10^6 bytes, as PerfView);
//                                      PER_HEAP_HISTORIES: how many GCPerHeapHistory it had;
//                                      FRAGn: Gen n Frag % (LOH: 3), NaN when not known
//   jit_total PID N MS                 JITStats: methods compiled and JIT time
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Analysis.GC;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.EventPipe;
using TraceLog = Microsoft.Diagnostics.Tracing.Etlx.TraceLog;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace PcTraceEvent
{
	public static class PerfViewCmd
	{
		static string F(double v) => v.ToString("F3", CultureInfo.InvariantCulture);

		static readonly Dictionary<string, long> sampleStacks = new Dictionary<string, long>(StringComparer.Ordinal);
		static readonly Dictionary<string, long[]> allocTypes = new Dictionary<string, long[]>(StringComparer.Ordinal);
		static readonly Dictionary<string, long> allocStacks = new Dictionary<string, long>(StringComparer.Ordinal);
		static readonly Dictionary<string, long> exceptionTypes = new Dictionary<string, long>(StringComparer.Ordinal);
		static readonly Dictionary<string, long> exceptionStacks = new Dictionary<string, long>(StringComparer.Ordinal);

		static void Add(Dictionary<string, long> d, string k, long v)
		{
			d.TryGetValue(k, out var n);
			d[k] = n + v;
		}

		// The event's stack, root first, as TraceLog's stack source names the frames.
		static string Stack(MutableTraceEventStackSource source, TraceEvent data)
		{
			var names = new List<string>();
			for (var s = source.GetCallStack(data.CallStackIndex(), data); s != StackSourceCallStackIndex.Invalid; s = source.GetCallerIndex(s))
			{
				string name = source.GetFrameName(source.GetFrameIndex(s), false);
				if (name.StartsWith("Thread (", StringComparison.Ordinal) || name.StartsWith("Process", StringComparison.Ordinal) || name == "BROKEN")
					continue;
				names.Add(name);
			}
			names.Reverse();
			return string.Join(";", names);
		}

		static string Leaf(string stack, string leaf) => stack.Length > 0 ? stack + ";" + leaf : leaf;

		public static int Run(string[] args)
		{
			if (args.Length != 1)
			{
				Console.Error.WriteLine("usage: pc-traceevent perfview FILE.nettrace");
				return 2;
			}
			string etlx = Path.Combine(Path.GetTempPath(), "pc-perfview-" + Environment.ProcessId + ".etlx");
			var options = new TraceLogOptions
			{
				ConversionLog = TextWriter.Null,
				ContinueOnError = true,
				ShouldResolveSymbols = _ => false, // names come from the file's own events
			};
			try
			{
				TraceLog.CreateFromEventPipeDataFile(args[0], etlx, options);
				using var log = new TraceLog(etlx);
				Report(log);
			}
			finally
			{
				File.Delete(etlx);
			}
			return 0;
		}

		static void Report(TraceLog log)
		{
			var stacks = new MutableTraceEventStackSource(log);
			var source = log.Events.GetSource();
			long contention = 0, contentionNs = 0;
			new SampleProfilerTraceEventParser(source).ThreadSample += data =>
				Add(sampleStacks, data.Type + " " + Stack(stacks, data), 1);
			source.Clr.GCAllocationTick += data =>
			{
				long bytes = data.AllocationAmount64;
				string type = string.IsNullOrEmpty(data.TypeName) ? "?" : data.TypeName;
				if (!allocTypes.TryGetValue(type, out var t))
					allocTypes[type] = t = new long[2];
				t[0] += bytes;
				t[1]++;
				Add(allocStacks, Leaf(Stack(stacks, data), type), bytes);
			};
			source.Clr.ExceptionStart += data =>
			{
				Add(exceptionTypes, data.ExceptionType, 1);
				Add(exceptionStacks, Leaf(Stack(stacks, data), data.ExceptionType), 1);
			};
			source.Clr.ContentionStart += data => contention++;
			source.Clr.ContentionStop += data => contentionNs += (long)data.DurationNs;
			source.NeedLoadedDotNetRuntimes();
			source.Process();

			foreach (var kv in sampleStacks.OrderBy(k => k.Key, StringComparer.Ordinal))
			{
				int sp = kv.Key.IndexOf(' ');
				Console.WriteLine($"sample_stack {kv.Key.Substring(0, sp)} {kv.Value} {kv.Key.Substring(sp + 1)}");
			}
			foreach (var kv in allocTypes.OrderByDescending(k => k.Value[0]).ThenBy(k => k.Key, StringComparer.Ordinal))
				Console.WriteLine($"alloc_type {kv.Value[0]} {kv.Value[1]} {kv.Key}");
			foreach (var kv in allocStacks.OrderBy(k => k.Key, StringComparer.Ordinal))
				Console.WriteLine($"alloc_stack {kv.Value} {kv.Key}");
			foreach (var kv in exceptionTypes.OrderByDescending(k => k.Value).ThenBy(k => k.Key, StringComparer.Ordinal))
				Console.WriteLine($"exception_type {kv.Value} {kv.Key}");
			foreach (var kv in exceptionStacks.OrderBy(k => k.Key, StringComparer.Ordinal))
				Console.WriteLine($"exception_stack {kv.Value} {kv.Key}");
			Console.WriteLine($"contention {contention} {contentionNs}");

			foreach (var proc in source.Processes().OrderBy(p => p.ProcessID))
			{
				var rt = proc.LoadedDotNetRuntime();
				if (rt == null)
					continue;
				var stats = rt.GC.Stats();
				Console.WriteLine($"gc_total {proc.ProcessID} {stats.Count} " + F(stats.TotalPauseTimeMSec));
				var gens = rt.GC.Generations();
				for (int g = 0; g < gens.Length; g++)
					if (gens[g] != null && gens[g].Count > 0)
						Console.WriteLine($"gc_gen {proc.ProcessID} {g} {gens[g].Count} " + F(gens[g].TotalPauseTimeMSec));
				foreach (var gc in rt.GC.GCs.Where(gc => gc.IsComplete))
				{
					Console.WriteLine($"gc_row {proc.ProcessID} {gc.Number} {gc.Generation} " + F(gc.PauseDurationMSec) + $" {gc.Reason} {gc.Type}");
					// GcStats.cs's "GC Events by Time": Gen0 Alloc MB is UserAllocated[Gen0],
					// its rate that over DurationSinceLastRestartMSec
					double alloc0 = gc.UserAllocated[(int)Gens.Gen0];
					Console.WriteLine($"gc_stats {proc.ProcessID} {gc.Number} " + F(gc.PauseTimePercentageSinceLastGC) + " " +
						F(alloc0) + " " + F(alloc0 * 1000.0 / gc.DurationSinceLastRestartMSec) + " " + F(gc.HeapSizePeakMB) + " " +
						F(gc.HeapSizeAfterMB) + " " + F(gc.PromotedMB) + " " + F(gc.HeapStats.FinalizationPromotedSize / 1000000.0) +
						$" {gc.HeapStats.PinnedObjectCount} {gc.PerHeapHistories?.Count ?? 0} " +
						string.Join(" ", Enumerable.Range(0, 4).Select(g => F(gc.GenFragmentationPercent((Gens)g)))));
				}
				var jit = rt.JIT.Stats();
				Console.WriteLine($"jit_total {proc.ProcessID} {jit.Count} " + F(jit.TotalCpuTimeMSec));
			}
		}
	}
}
