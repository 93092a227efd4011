// tracelog: a .nettrace as PerfView opens it: TraceLog.CreateFromEventPipeDataFile (the call
// PerfView's EventPipePerfViewData.GetTraceLog makes, with its options), then PerfView's "CPU"
// view (Universal.Events/cpu samples, metric = Value) and its "Thread Time" view
// (ThreadTimeStackComputer with ExcludeReadyThread, as TraceLog.ThreadTimeStacks in PerfView).
//
// Prints, in this order:
//   events N                       events TraceLog kept
//   lost N                         events the reader said were lost
//   event PROVIDER/NAME N S        per event type: count and how many carry a stack
//   process PID "NAME" MS           per process: its CPU ms as TraceLog counts them
//   cpu_samples N                  samples of the CPU view
//   cpu_metric M                   their summed metric
//   cpu_leaf N NAME                leaf frames of the CPU view, with their sample counts
//   cpu_frame N NAME               every frame (module!method), with the samples holding it
//   cpu_stack M;ROOT;...;LEAF      --stacks: one line per CPU sample, root first
//   tt_state NAME M                --threadtime: ms under CPU_TIME, BLOCKED_TIME ...
//   tt_blocked M NAME              --threadtime: blocked ms of the stacks holding each frame
//   tt_stack M;ROOT;...;LEAF       --threadtime --stacks: one line per thread-time sample
//   runtime_event PROVIDER/NAME PID N S M FIRST LAST   --runtime: per event type of a
//                                  provider other than Universal.* and process TraceLog gave it
//                                  to: its count, how many carry a stack, how many of those have
//                                  a named frame, the first and last one's time (ms)
//   cpu_span FIRST LAST            the first and last CPU sample's time (ms)
//   sp_state NAME M                --sampleprofiler: PerfView's "Thread Time (with StartStop
//                                  Activities)" view of an EventPipe trace (its
//                                  SampleProfiler's thread samples, managed frames only, as
//                                  PerfViewData builds it): ms under CPU_TIME,
//                                  UNMANAGED_CODE_TIME ...
//   sp_leaf N NAME                 --sampleprofiler: leaf frames of the CPU_TIME samples
//   sp_frame N NAME                --sampleprofiler: every frame of the CPU_TIME samples, with
//                                  the samples holding it
//   sp_stack THREAD;ROOT;...;LEAF  --sampleprofiler --stacks: one line per CPU_TIME sample, its
//                                  thread's id first, then its frames (pseudo frames dropped)
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Universal.Events;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace PcTraceEvent
{
	public static class TraceLogCmd
	{
		static string F(double v) => v.ToString("F3", CultureInfo.InvariantCulture);

		// Root first: the frames of a sample from its leaf up, reversed.
		static List<string> Frames(StackSource source, StackSourceCallStackIndex s)
		{
			var names = new List<string>();
			for (; s != StackSourceCallStackIndex.Invalid; s = source.GetCallerIndex(s))
				names.Add(source.GetFrameName(source.GetFrameIndex(s), false));
			names.Reverse();
			return names;
		}

		public static int Run(string[] args)
		{
			if (args.Length < 1)
			{
				Console.Error.WriteLine("usage: pc-traceevent tracelog FILE.nettrace [--threadtime] [--stacks] [--events] [--runtime] [--sampleprofiler]");
				return 2;
			}
			bool threadTime = args.Contains("--threadtime");
			bool stacks = args.Contains("--stacks");
			dumpEvents = args.Contains("--events");
			runtime = args.Contains("--runtime");
			sampleProfiler = args.Contains("--sampleprofiler");
			string etlx = Path.Combine(Path.GetTempPath(), "pc-tracelog-" + Environment.ProcessId + ".etlx");
			int lost = 0;
			var options = new TraceLogOptions
			{
				ConversionLog = TextWriter.Null,
				ContinueOnError = false,
				LocalSymbolsOnly = false,
				ShouldResolveSymbols = _ => false, // PerfView resolves none here: names come from the file
				OnLostEvents = (truncated, n, _) => lost += n,
			};
			try
			{
				TraceLog.CreateFromEventPipeDataFile(args[0], etlx, options);
				using var log = new TraceLog(etlx);
				Report(log, lost, threadTime, stacks);
			}
			finally
			{
				File.Delete(etlx);
			}
			return 0;
		}

		static bool dumpEvents, runtime, sampleProfiler;

		// PerfView's view of an EventPipe trace's SampleProfiler samples (see --sampleprofiler).
		static void SampleProfilerView(TraceLog log, bool stacks)
		{
			var source = new MutableTraceEventStackSource(log) { OnlyManagedCodeStacks = true };
			using var symbols = new SymbolReader(TextWriter.Null, "");
			new SampleProfilerThreadTimeComputer(log, symbols).GenerateThreadTimeStacks(source);
			var states = new SortedDictionary<string, double>(StringComparer.Ordinal);
			var leaves = new Dictionary<string, long>();
			var frames = new Dictionary<string, long>();
			source.ForEach(s =>
			{
				var names = Frames(source, s.StackIndex);
				string state = names.LastOrDefault(n => n == "CPU_TIME" || n == "UNMANAGED_CODE_TIME" || n == "BLOCKED_TIME" || n == "AWAIT_TIME");
				if (state == null)
					return;
				states.TryGetValue(state, out var m);
				states[state] = m + s.Metric;
				if (state != "CPU_TIME")
					return;
				int at = names.LastIndexOf(state);
				if (at > 0)
				{
					leaves.TryGetValue(names[at - 1], out var n);
					leaves[names[at - 1]] = n + 1;
				}
				foreach (var name in names.Take(at).Distinct())
				{
					frames.TryGetValue(name, out var n);
					frames[name] = n + 1;
				}
				if (stacks)
				{
					// "Thread (TID)" is the thread's pseudo frame; the real frames hold a '!'.
					string thread = names.FirstOrDefault(n => n.StartsWith("Thread (", StringComparison.Ordinal)) ?? "Thread (?)";
					Console.WriteLine("sp_stack " + thread.Substring(8).TrimEnd(')') + ";" + string.Join(";", names.Take(at).Where(n => n.Contains('!'))));
				}
			});
			foreach (var st in states)
				Console.WriteLine($"sp_state {st.Key} " + F(st.Value));
			foreach (var f in leaves.OrderByDescending(f => f.Value).ThenBy(f => f.Key, StringComparer.Ordinal))
				Console.WriteLine($"sp_leaf {f.Value} {f.Key}");
			foreach (var f in frames.OrderByDescending(f => f.Value).ThenBy(f => f.Key, StringComparer.Ordinal))
				Console.WriteLine($"sp_frame {f.Value} {f.Key}");
		}

		// The events of the runtime's providers, by type and process (see --runtime).
		static void RuntimeEvents(TraceLog log)
		{
			var counts = new SortedDictionary<string, long[]>(StringComparer.Ordinal);
			var times = new Dictionary<string, double[]>();
			foreach (var e in log.Events)
			{
				if (e.ProviderName.StartsWith("Universal.", StringComparison.Ordinal))
					continue;
				string key = $"{e.ProviderName}/{e.EventName} {e.ProcessID}";
				if (!counts.TryGetValue(key, out var c))
				{
					counts[key] = c = new long[3];
					times[key] = new[] { e.TimeStampRelativeMSec, e.TimeStampRelativeMSec };
				}
				c[0]++;
				times[key][1] = e.TimeStampRelativeMSec;
				var stack = e.CallStack();
				if (stack == null)
					continue;
				c[1]++;
				for (var f = stack; f != null; f = f.Caller)
					if (!string.IsNullOrEmpty(f.CodeAddress.FullMethodName))
					{
						c[2]++;
						break;
					}
			}
			foreach (var kv in counts)
				Console.WriteLine($"runtime_event {kv.Key} {kv.Value[0]} {kv.Value[1]} {kv.Value[2]} " + F(times[kv.Key][0]) + " " + F(times[kv.Key][1]));
		}

		static void Report(TraceLog log, int lost, bool threadTime, bool stacks)
		{
			if (dumpEvents)
				foreach (var e in log.Events)
					Console.WriteLine("dump " + e.ToString().Replace('\n', ' '));
			Console.WriteLine($"events {log.EventCount}");
			Console.WriteLine($"lost {lost}");
			foreach (var st in log.Stats.OrderBy(s => s.ProviderName, StringComparer.Ordinal).ThenBy(s => s.EventName, StringComparer.Ordinal))
				Console.WriteLine($"event {st.ProviderName}/{st.EventName} {st.Count} {st.StackCount}");
			foreach (var p in log.Processes.OrderBy(p => p.ProcessID))
				Console.WriteLine($"process {p.ProcessID} \"{p.Name}\" " + F(p.CPUMSec) + (dumpEvents ? $" image={p.ImageFileName} cmd={p.CommandLine} start={p.StartTimeRelativeMsec} idx={p.ProcessIndex}" : ""));
			if (runtime)
				RuntimeEvents(log);
			if (sampleProfiler)
				SampleProfilerView(log, stacks);

			// PerfView's "CPU" view of a universal trace (EventPipePerfViewData "CPU").
			var cpu = new MutableTraceEventStackSource(log);
			var sample = new StackSourceSample(cpu);
			var source = log.Events.GetSource();
			var universal = new UniversalEventsTraceEventParser(source);
			double firstCpu = double.NaN, lastCpu = double.NaN;
			universal.cpu += data =>
			{
				if (double.IsNaN(firstCpu))
					firstCpu = data.TimeStampRelativeMSec;
				lastCpu = data.TimeStampRelativeMSec;
				sample.TimeRelativeMSec = data.TimeStampRelativeMSec;
				sample.Metric = data.Value;
				sample.StackIndex = cpu.GetCallStack(data.CallStackIndex(), data);
				cpu.AddSample(sample);
			};
			source.Process();
			cpu.DoneAddingSamples();
			if (runtime)
				Console.WriteLine("cpu_span " + F(firstCpu) + " " + F(lastCpu));

			long samples = 0;
			double metric = 0;
			var leaves = new Dictionary<string, long>();
			var frames = new Dictionary<string, long>();
			cpu.ForEach(s =>
			{
				samples++;
				metric += s.Metric;
				var names = Frames(cpu, s.StackIndex);
				if (names.Count > 0)
				{
					leaves.TryGetValue(names[^1], out var n);
					leaves[names[^1]] = n + 1;
				}
				foreach (var name in names.Distinct())
				{
					frames.TryGetValue(name, out var n);
					frames[name] = n + 1;
				}
				if (stacks)
					Console.WriteLine("cpu_stack " + s.Metric.ToString("R", CultureInfo.InvariantCulture) + ";" + string.Join(";", names));
			});
			Console.WriteLine($"cpu_samples {samples}");
			Console.WriteLine("cpu_metric " + F(metric));
			foreach (var f in leaves.OrderByDescending(f => f.Value).ThenBy(f => f.Key, StringComparer.Ordinal))
				Console.WriteLine($"cpu_leaf {f.Value} {f.Key}");
			foreach (var f in frames.OrderByDescending(f => f.Value).ThenBy(f => f.Key, StringComparer.Ordinal))
				Console.WriteLine($"cpu_frame {f.Value} {f.Key}");

			if (!threadTime)
				return;
			// PerfView's "Thread Time" view of a universal trace (TraceLog.ThreadTimeStacks).
			var tt = new MutableTraceEventStackSource(log);
			#pragma warning disable CS0618 // "experimental": PerfView uses it all the same
			var computer = new ThreadTimeStackComputer(log, null) { ExcludeReadyThread = true };
			computer.GenerateThreadTimeStacks(tt);
			var states = new Dictionary<string, double>();
			var blocked = new Dictionary<string, double>();
			tt.ForEach(s =>
			{
				var names = Frames(tt, s.StackIndex);
				string state = names.FirstOrDefault(n => n == "BLOCKED_TIME" || n == "CPU_TIME" || n.StartsWith("LAST_BLOCK"));
				if (state != null)
				{
					states.TryGetValue(state, out var m);
					states[state] = m + s.Metric;
				}
				if (state == "BLOCKED_TIME")
					foreach (var name in names.Distinct())
					{
						blocked.TryGetValue(name, out var m);
						blocked[name] = m + s.Metric;
					}
				if (stacks)
					Console.WriteLine("tt_stack " + F(s.Metric) + ";" + string.Join(";", names));
			});
			foreach (var st in states.OrderBy(s => s.Key, StringComparer.Ordinal))
				Console.WriteLine($"tt_state {st.Key} " + F(st.Value));
			foreach (var b in blocked.OrderByDescending(b => b.Value).ThenBy(b => b.Key, StringComparer.Ordinal))
				Console.WriteLine("tt_blocked " + F(b.Value) + " " + b.Key);
		}
	}
}
